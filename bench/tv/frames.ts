import type { JobRef } from "@/server/cluster/types";
import type { TvView } from "@/server/domain/access/share";
import type { StreamTarget } from "./viewers";

/**
 * What a viewer keeps from `tv.frame` (the hub's messages: a snapshot, then patches, which for TV frames are
 * the whole new frame, server/domain/tv/diff.ts; "unavailable" keeps the last frame), and the two things the
 * bench reads in a frame: a team's GPU quota (cluster view) and a job's restarts (jobs view). Both are found
 * by their row's identifying keys wherever the frame holds them, so a reshuffled frame layout still reads.
 */
export const GPU = "nvidia.com/gpu";

type HubMessage =
  | { kind: "snapshot"; value: unknown }
  | { kind: "patch"; patch: unknown }
  | { kind: "unavailable"; message: string };

export function tvFrameTarget(view: TvView): StreamTarget {
  return {
    path: "tv.frame",
    input: { view },
    apply(frame, message) {
      const hub = message as HubMessage;
      switch (hub.kind) {
        case "snapshot":
          return hub.value;
        case "patch":
          return hub.patch;
        case "unavailable":
          return frame;
        default:
          return hub satisfies never;
      }
    },
  };
}

type Row = Record<string, unknown>;

/** The first object inside `value` (depth-first) that `match` accepts. */
function findRow(value: unknown, match: (row: Row) => boolean, depth = 0): Row | null {
  if (value === null || typeof value !== "object" || depth > 6) return null;
  if (!Array.isArray(value) && match(value as Row)) return value as Row;
  const children: unknown[] = Array.isArray(value) ? value : Object.values(value);
  for (const child of children) {
    const found = findRow(child, match, depth + 1);
    if (found) return found;
  }
  return null;
}

export type FrameReader = {
  /** The team's GPU quota in a cluster frame (TeamGpuRow.quota); null when the frame has no row for it. */
  teamQuota(frame: unknown, team: string): number | null;
  /** The job's restarts in a jobs frame (TvJobRow.restarts); null when the frame does not list it. */
  jobRestarts(frame: unknown, job: JobRef): number | null;
};

export const tvFrameReader: FrameReader = {
  teamQuota(frame, team) {
    const row = findRow(frame, (r) => r.team === team && typeof r.quota === "number");
    return row ? (row.quota as number) : null;
  },
  jobRestarts(frame, job) {
    const row = findRow(
      frame,
      (r) => r.namespace === job.namespace && r.name === job.name && typeof r.restarts === "number",
    );
    return row ? (row.restarts as number) : null;
  },
};
