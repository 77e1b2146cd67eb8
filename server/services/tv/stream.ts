import type { Db } from "@/server/db/client";
import type { TvView } from "@/server/domain/access/share";
import { frameChange } from "@/server/domain/tv/diff";
import { scopeKey, type TvScope } from "@/server/domain/tv/scope";
import type { LiveMessage, LiveSource } from "@/server/services/live/hub";
import { rechecked } from "@/server/services/live/rechecked";
import { RECHECK_ACCESS_MS } from "@/server/services/live/scope";
import { liveHub } from "@/server/services/wiring";
import { currentTvViewer, requireTvView, type TvViewer } from "./access";
import { loadTvFrame, type TvFrame } from "./frame";
import type { TvReads } from "./reads";

/**
 * How often a view is assembled. A change reaches the TV within this plus the shared reads' age and the
 * assembly itself: 500 ms keeps that under the 1 s update-delay goal, and costs viewers nothing while
 * nothing changes (no frame is sent then).
 */
export const TV_INTERVAL_MS = 500;

/** A frame message: the first whole, then every change whole too (frames are small). */
export type TvMessage = LiveMessage<TvFrame, TvFrame>;

/** One view for one scope: the hub's shared loop, the same frames for every viewer of (view, scope). */
export function tvFrameSource(opts: {
  reads: TvReads;
  view: TvView;
  scope: TvScope;
}): LiveSource<TvFrame, TvFrame> {
  return {
    key: `tv:${opts.view}:${scopeKey(opts.scope)}`,
    intervalMs: TV_INTERVAL_MS,
    load: () => loadTvFrame(opts),
    diff: frameChange,
  };
}

/**
 * A viewer's frames of one view. Every RECHECK_ACCESS_MS (on its own timer, so a quiet stream ends on time
 * too) the viewer is looked up again: a revoked token or an ended session ends the stream (UNAUTHORIZED), a
 * view taken off the token ends it (FORBIDDEN), and changed teams start it again on the new scope.
 */
export async function* watchTvFrames(opts: {
  db: Db;
  reads: TvReads;
  viewer: TvViewer;
  sessionToken: string | undefined;
  view: TvView;
  signal: AbortSignal | undefined;
}): AsyncGenerator<TvMessage, void> {
  let scope = requireTvView(opts.viewer, opts.view);
  yield* rechecked({
    signal: opts.signal,
    everyMs: RECHECK_ACCESS_MS,
    open: (signal) => liveHub().stream(tvFrameSource({ reads: opts.reads, view: opts.view, scope }), signal),
    recheck: async () => {
      const viewer = await currentTvViewer(opts.db, { viewer: opts.viewer, sessionToken: opts.sessionToken });
      const next = requireTvView(viewer, opts.view);
      if (scopeKey(next) === scopeKey(scope)) return "keep";
      scope = next;
      return "reopen";
    },
  });
}
