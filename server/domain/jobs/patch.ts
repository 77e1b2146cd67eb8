import type { JobPage } from "@/server/domain/jobs/pages";
import type { RankView } from "./view-model";

/**
 * Live updates of a job page as small diffs: the first message is the whole page, then only what changed
 * (ranks by rank number; the other parts whole when they changed). Pure, shared by the stream that sends
 * and the page that applies them.
 */
export type JobPatch =
  | { kind: "snapshot"; page: JobPage }
  | {
      kind: "patch";
      ranks: RankView[];
      parts: Partial<Omit<JobPage, "topology">> & Partial<Pick<JobPage["topology"], "pods" | "nodes">>;
    };

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Every part of the page a patch carries whole when it changed: all of JobPage but the topology (diffed by
 * rank, pod and node below) and updatedAt. A Record over the keys, so a field added to JobPage and not
 * listed here fails the typecheck instead of freezing at its first value in open pages.
 */
const PART_KEYS: Record<Exclude<keyof JobPage, "topology" | "updatedAt">, true> = {
  namespace: true,
  name: true,
  team: true,
  teamId: true,
  status: true,
  phase: true,
  priorityClass: true,
  gpus: true,
  restartCount: true,
  reason: true,
  backOffUntil: true,
  ranksHealthy: true,
  ranksTotal: true,
  restarts: true,
  recovering: true,
  createdAt: true,
  timeline: true,
  totals: true,
  events: true,
  logRules: true,
  resourceVersion: true,
  appliedPolicy: true,
  shadow: true,
  verdicts: true,
  pendingRestart: true,
  elastic: true,
  scaling: true,
};
const PARTS = Object.keys(PART_KEYS) as Array<keyof typeof PART_KEYS>;

/** null when nothing a viewer sees changed (updatedAt alone does not count). */
export function diffPage(previous: JobPage | null, next: JobPage): JobPatch | null {
  if (!previous || previous.topology.ranks.length !== next.topology.ranks.length)
    return { kind: "snapshot", page: next };
  const ranks = next.topology.ranks.filter((rank, index) => !same(rank, previous.topology.ranks[index]));
  const parts: Record<string, unknown> = {};
  for (const key of PARTS) if (!same(previous[key], next[key])) parts[key] = next[key];
  if (!same(previous.topology.pods, next.topology.pods)) parts.pods = next.topology.pods;
  if (!same(previous.topology.nodes, next.topology.nodes)) parts.nodes = next.topology.nodes;
  if (ranks.length === 0 && Object.keys(parts).length === 0) return null;
  return { kind: "patch", ranks, parts: parts as Extract<JobPatch, { kind: "patch" }>["parts"] };
}

export function applyPatch(page: JobPage | null, patch: JobPatch): JobPage | null {
  if (patch.kind === "snapshot") return patch.page;
  if (!page) return null;
  const { pods, nodes, ...rest } = patch.parts;
  const ranks =
    patch.ranks.length === 0
      ? page.topology.ranks
      : (() => {
          const changed = new Map(patch.ranks.map((rank) => [rank.rank, rank]));
          return page.topology.ranks.map((rank) => changed.get(rank.rank) ?? rank);
        })();
  return {
    ...page,
    ...rest,
    topology: {
      ...page.topology,
      pods: pods ?? page.topology.pods,
      nodes: nodes ?? page.topology.nodes,
      ranks,
    },
  };
}
