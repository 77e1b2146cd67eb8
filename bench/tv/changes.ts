import type { JobRef } from "@/server/cluster/types";
import type { QuotaView } from "@/server/services/governance/governance.schema";
import type { BenchEnvironment } from "../k8s/environment";
import { injectNodeFault } from "../k8s/faults";
import { type FrameReader, GPU } from "./frames";
import type { ConsoleSession } from "./http";
import type { Change, ViewerPool } from "./viewers";

/**
 * The changes whose arrival on the TVs is timed, made as a user or the cluster would make them:
 *  - quota: the cluster admin sets the team's guaranteed GPUs through governance.quota.update (the cluster view
 *    shows GPUs in use vs quota per team): the console's own path, from the mutation's request to the frame;
 *  - fault: a node of the job is marked UnschedulablePendingReboot (bench/k8s/faults.ts) and the operator
 *    replaces its pod (the jobs view shows the job's restarts): from the label write, so the operator's
 *    detection is inside the figure; its detection time (the RestartEvent's detectedAt) is kept too.
 */
export type ChangeKind = "quota" | "fault";

export type MadeChange = {
  change: Change;
  /** Just before the change was sent (this machine's clock; the console's and operator's too). */
  at: number;
  /** Fault: when the operator detected it (RestartEvent.detectedAt). */
  detectedAt: number | null;
};

/** What governance.quota.get answers (over JSON: its dates as strings, unused here). */
type QuotaState = QuotaView;

/** The fields governance.quota.update takes, from what governance.quota.get answers, with new GPUs. */
function withGpus(quota: QuotaState, gpus: number) {
  const { team, version, activation, strategy, borrowLimitPercent, preemptTeamTasks, fairShareWeight } =
    quota;
  const resources = quota.resources.map((row) => (row.resource === GPU ? { ...row, guaranteed: gpus } : row));
  if (!resources.some((row) => row.resource === GPU))
    resources.push({ instanceType: "default", resource: GPU, guaranteed: gpus, absoluteBorrowLimit: null });
  return {
    team,
    version,
    activation,
    strategy,
    borrowLimitPercent,
    preemptTeamTasks,
    fairShareWeight,
    description: quota.description,
    resources,
  };
}

const gpusOf = (quota: QuotaState) =>
  quota.resources.filter((row) => row.resource === GPU).reduce((sum, row) => sum + row.guaranteed, 0);

export function changeMaker(input: {
  env: BenchEnvironment;
  admin: ConsoleSession;
  pool: ViewerPool;
  reader: FrameReader;
  job: JobRef;
  team: string;
  /** Node faults at most; after them, quota changes. */
  maxFaults: number;
  log: (line: string) => void;
}) {
  const { env, admin, pool, reader, job, team, log } = input;
  const usedNodes = new Set<string>();
  let next = 0;
  let originalGpus: number | null = null;
  let faultsStopped: string | null = null;
  let faults = 0;

  async function quota(): Promise<MadeChange> {
    const current = await admin.query<QuotaState>("governance.quota.get", { team });
    originalGpus ??= gpusOf(current);
    // Alternates between the seeded quota and one more GPU: every change differs from the last.
    const target = gpusOf(current) === originalGpus ? originalGpus + 1 : originalGpus;
    const change: Change = {
      id: next++,
      kind: "quota",
      views: ["cluster"],
      reflected: () => (frame) => reader.teamQuota(frame, team) === target,
    };
    pool.track(change);
    const at = Date.now();
    await admin.mutate("governance.quota.update", withGpus(current, target));
    return { change, at, detectedAt: null };
  }

  async function fault(timeoutMs: number): Promise<MadeChange> {
    const change: Change = {
      id: next++,
      kind: "fault",
      views: ["jobs"],
      reflected: (baseline) => {
        const before = reader.jobRestarts(baseline, job) ?? 0;
        return (frame) => (reader.jobRestarts(frame, job) ?? 0) > before;
      },
    };
    pool.track(change);
    faults += 1;
    const at = Date.now();
    try {
      const sample = await injectNodeFault({ env, ref: job, used: usedNodes, timeoutMs });
      return { change, at: sample.patchSentAt, detectedAt: sample.event.detectedAt.getTime() };
    } catch (error) {
      // The TVs are timed from just before the label write; a recovery that does not settle in time stops
      // further faults (the job may be backing off), and the run goes on with quota changes.
      faultsStopped = error instanceof Error ? error.message : String(error);
      log(`node faults stopped: ${faultsStopped}`);
      return { change, at, detectedAt: null };
    }
  }

  return {
    make: (kind: ChangeKind, timeoutMs: number) =>
      kind === "quota" || faultsStopped !== null || faults >= input.maxFaults ? quota() : fault(timeoutMs),
    /** Puts the team's seeded quota back. */
    async restore() {
      if (originalGpus === null) return;
      const current = await admin.query<QuotaState>("governance.quota.get", { team });
      if (gpusOf(current) !== originalGpus)
        await admin.mutate("governance.quota.update", withGpus(current, originalGpus));
    },
  };
}
