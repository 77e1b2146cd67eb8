import { waitUntil } from "@/server/cluster/kubernetes/testing/kube-env";
import type { TvView } from "@/server/domain/access/share";
import { type Subscription, subscribe } from "./sse";

/**
 * The TV viewers: each one its own SSE subscription, keeping its own current frame from the messages it gets
 * (as a TV page does), and noting when its frame first reflects each change the bench made. A change is
 * tracked by the viewers whose view shows it; each of them judges it against its own frame at the time the
 * change was made (its baseline).
 */
export type StreamTarget = {
  path: string;
  input: unknown;
  /** The viewer's frame after one message (the hub's snapshot / patch / unavailable). */
  apply(frame: unknown, message: unknown): unknown;
};

export type Change = {
  id: number;
  kind: string;
  /** The views that show this change: their viewers time it. */
  views: readonly TvView[];
  /** Given a viewer's frame when the change is made, the test its later frames pass once they reflect it. */
  reflected(baseline: unknown): (frame: unknown) => boolean;
};

export type Viewer = {
  id: number;
  view: TvView;
  frames: number;
  firstFrameAt: number | null;
  frame: unknown;
  ended: string | null;
  /** Change id → when this viewer's frame first reflected it. */
  seen: Map<number, number>;
  pending: Array<{ id: number; test: (frame: unknown) => boolean }>;
  subscription: Subscription;
};

export type ViewerPool = {
  viewers: Viewer[];
  /** Starts timing a change on the viewers of its views (call just before making it). */
  track(change: Change): void;
  /** Resolves once every viewer that tracks the change has seen it, or when timeoutMs is over. */
  settle(change: Change, timeoutMs: number): Promise<void>;
  connected(): number;
  close(): void;
};

function received(viewer: Viewer, target: StreamTarget, message: unknown, at: number) {
  viewer.frames += 1;
  viewer.frame = target.apply(viewer.frame, message);
  viewer.firstFrameAt ??= at;
  if (viewer.pending.length === 0) return;
  viewer.pending = viewer.pending.filter((check) => {
    if (!check.test(viewer.frame)) return true;
    viewer.seen.set(check.id, at);
    return false;
  });
}

export async function openViewers(input: {
  baseUrl: string;
  count: number;
  views: readonly TvView[];
  /** Request headers that carry the viewers' credential (the share token, or a session cookie). */
  headers: Record<string, string>;
  target: (view: TvView) => StreamTarget;
  log: (line: string) => void;
  timeoutMs: number;
}): Promise<ViewerPool> {
  const viewers: Viewer[] = Array.from({ length: input.count }, (_, id) => {
    const view = input.views[id % input.views.length] as TvView;
    const target = input.target(view);
    const viewer: Viewer = {
      id,
      view,
      frames: 0,
      firstFrameAt: null,
      frame: null,
      ended: null,
      seen: new Map(),
      pending: [],
      subscription: subscribe({
        baseUrl: input.baseUrl,
        path: target.path,
        input: target.input,
        headers: input.headers,
        onValue: (message, at) => received(viewer, target, message, at),
      }),
    };
    void viewer.subscription.ended.then((reason) => {
      viewer.ended = reason;
      if (reason !== "closed") input.log(`viewer ${id} (${view}) dropped: ${reason}`);
    });
    return viewer;
  });
  await waitUntil(
    `all ${input.count} viewers' first frames`,
    () => {
      const dropped = viewers.find((viewer) => viewer.ended !== null);
      if (dropped) throw new Error(`viewer ${dropped.id} dropped before its first frame: ${dropped.ended}`);
      return viewers.every((viewer) => viewer.firstFrameAt !== null);
    },
    input.timeoutMs,
  );
  const watching = (change: Change) => viewers.filter((viewer) => change.views.includes(viewer.view));
  return {
    viewers,
    track(change) {
      for (const viewer of watching(change))
        viewer.pending.push({ id: change.id, test: change.reflected(viewer.frame) });
    },
    async settle(change, timeoutMs) {
      const until = Date.now() + timeoutMs;
      while (Date.now() < until && watching(change).some((viewer) => !viewer.seen.has(change.id)))
        await new Promise((resolve) => setTimeout(resolve, 100));
      for (const viewer of watching(change))
        viewer.pending = viewer.pending.filter((check) => check.id !== change.id);
    },
    connected: () => viewers.filter((viewer) => viewer.ended === null).length,
    close() {
      for (const viewer of viewers) viewer.subscription.close();
    },
  };
}
