/**
 * Checkpoint discovery over IPC (HyperPod's CheckpointDiscoverySocketServer and CheckpointTracker):
 * `ckpt_init` {prefix, checkpoint_types: {model_checkpoint: n, data_checkpoint: m}} says how many local ranks
 * report each type; `ckpt_info_update` {step, path, checkpoint_type} is one rank's report; a step is valid
 * once every expected rank reported every type; `ckpt_info_get` answers {path} of the highest valid step
 * (null before any). A new prefix starts over.
 */

type Step = { path: string | null; reported: Map<string, Set<number>> };

type Report = { step: number; path: string | null; type: string; rank: number };

function reportOf(body: Record<string, unknown>): Report | null {
  const { step, path, checkpoint_type: type, local_rank: rank } = body;
  if (typeof step !== "number" || typeof type !== "string" || typeof rank !== "number") return null;
  return { step, path: typeof path === "string" ? path : null, type, rank };
}

export type CheckpointTracker = ReturnType<typeof createCheckpointTracker>;

export function createCheckpointTracker() {
  let prefix = "";
  let expected: Record<string, number | null> = {};
  let steps = new Map<number, Step>();
  let best: { step: number; path: string | null } | null = null;
  const complete = (entry: Step) =>
    Object.entries(expected).every(
      ([type, count]) => count !== null && (entry.reported.get(type)?.size ?? 0) === count,
    );
  return {
    init(body: Record<string, unknown>) {
      const next = typeof body.prefix === "string" ? body.prefix : "";
      const types = body.checkpoint_types;
      expected = typeof types === "object" && types !== null ? (types as Record<string, number | null>) : {};
      if (next !== prefix) {
        steps = new Map();
        best = null;
      }
      prefix = next;
    },
    update(body: Record<string, unknown>) {
      const report = reportOf(body);
      if (report === null) return;
      const entry = steps.get(report.step) ?? { path: null, reported: new Map() };
      steps.set(report.step, entry);
      if (report.path !== null) entry.path = report.path;
      entry.reported.set(report.type, (entry.reported.get(report.type) ?? new Set()).add(report.rank));
      if (complete(entry) && (best === null || report.step > best.step))
        best = { step: report.step, path: entry.path };
    },
    latestPath: (): string | null => best?.path ?? null,
  };
}
