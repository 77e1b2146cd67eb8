import { createTRPCRouter, toTrpcError, viewerProcedure } from "@/server/api/trpc";
import { tvViewsOf } from "@/server/services/tv/access";
import { tvReads } from "@/server/services/tv/reads";
import { watchTvFrames } from "@/server/services/tv/stream";
import { tvFrameInputSchema, tvViewsOutputSchema } from "./tv.schema";

/** The TV dashboards' data, pushed: for a signed-in user or a share token (viewerProcedure). */
export const tvRouter = createTRPCRouter({
  /** The views this viewer may open (the /tv index and playlists). */
  views: viewerProcedure.output(tvViewsOutputSchema).query(({ ctx }) => ({
    views: tvViewsOf(ctx.viewer),
    viewer:
      ctx.viewer.kind === "share"
        ? { kind: "share" as const, label: ctx.viewer.grant.label }
        : { kind: "user" as const, label: ctx.viewer.user.name },
  })),

  /**
   * One view's frames (SSE): the whole frame first, then each changed frame, from one loop per (view, scope)
   * shared by every viewer. Ends with UNAUTHORIZED within 2 s of the token being revoked (or the session
   * ending); a view the token does not include is FORBIDDEN.
   */
  frame: viewerProcedure.input(tvFrameInputSchema).subscription(async function* ({ ctx, input, signal }) {
    // A subscription's errors pass no middleware once it has started: AppErrors become TRPCErrors here.
    try {
      yield* watchTvFrames({
        db: ctx.db,
        reads: tvReads({ db: ctx.db, cluster: ctx.cluster }),
        viewer: ctx.viewer,
        sessionToken: ctx.sessionToken,
        view: input.view,
        signal,
      });
    } catch (error) {
      throw toTrpcError(error);
    }
  }),
});
