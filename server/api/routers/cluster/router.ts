import { createTRPCRouter, protectedProcedure } from "@/server/api/trpc";
import { readableNamespaces } from "@/server/services/access/job-access";
import { clusterNodes } from "@/server/services/jobs/cluster";
import { watchClusterNodes } from "@/server/services/live/cluster-streams";
import { withTrpcErrors } from "../jobs/live-errors";
import { clusterNodeRowSchema } from "./cluster.schema";

export const clusterRouter = createTRPCRouter({
  /** Nodes with health, GPUs used and free, and the jobs on each that the caller may see. */
  nodes: protectedProcedure
    .output(clusterNodeRowSchema.array())
    .query(async ({ ctx }) => clusterNodes(await ctx.cluster(), await readableNamespaces(ctx.db, ctx.user))),

  /**
   * The same rows, live (SSE): whole first, then keyed diffs, from one loop per readable scope whose reads
   * of the cluster's jobs and nodes are shared with the jobs list. Ends (UNAUTHORIZED) once the session is
   * revoked.
   */
  nodesWatch: protectedProcedure.subscription(async function* ({ ctx, signal }) {
    const session = { db: ctx.db, user: ctx.user, sessionToken: ctx.sessionToken, signal };
    yield* withTrpcErrors(watchClusterNodes({ ...session, source: await ctx.cluster() }));
  }),
});
