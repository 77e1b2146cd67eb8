import YAML from "yaml";
import type { JobRef } from "@/server/cluster/types";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import type { BenchOperator } from "./operator";

export const NAMESPACE = "hyperpod-ns-llm-research";

export type BenchJob = { ref: JobRef; nodes: number; ranksPerNode: number; ranks: number };

type BenchJobDoc = {
  spec: {
    replicaSpecs: { template: { spec: { containers: { env?: { name: string; value: string }[] }[] } } }[];
    runPolicy: Record<string, unknown> & { restartPolicy: Record<string, unknown> };
  };
};

/**
 * The benchmark's demo-trainer job: `demoJobYaml` with a restart budget that lasts the whole run
 * (jobMaxRetryCount, maxFullJobRestarts), and either no escalation (every fault restarts in place or
 * replaces a pod) or `fullRestarts` (numRestartBeforeFullJobRestart 0: every fault is a full job restart).
 * Hangs are injected into every local rank (phases.ts), so the agents opt in to faulting on every rank's
 * log rules (REBOUND_LOG_RULES_ALL_RANKS; hyperpodrun's default watches local rank 0 only).
 */
export function benchJobYaml(opts: {
  name: string;
  nodes: number;
  ranksPerNode: number;
  stepMs: number;
  hangSeconds: number;
  maxRestarts: number;
  fullRestarts: boolean;
}): string {
  const doc = YAML.parse(
    demoJobYaml({
      name: opts.name,
      nodes: opts.nodes,
      ranks: opts.ranksPerNode,
      stepMs: opts.stepMs,
      hangSeconds: opts.hangSeconds,
      restartsBeforeFullRestart: opts.fullRestarts ? 0 : opts.maxRestarts,
    }),
  ) as BenchJobDoc;
  for (const replica of doc.spec.replicaSpecs) {
    for (const container of replica.template.spec.containers) {
      container.env = [...(container.env ?? []), { name: "REBOUND_LOG_RULES_ALL_RANKS", value: "true" }];
    }
  }
  doc.spec.runPolicy.jobMaxRetryCount = opts.maxRestarts;
  doc.spec.runPolicy.restartPolicy.maxFullJobRestarts = opts.maxRestarts;
  return YAML.stringify(doc);
}

/** Every rank runs and has printed a step line since its (re)start: the JobHang rule is HEALTHY everywhere. */
export function allStepping(operator: BenchOperator, job: BenchJob): boolean {
  const live = operator.live(job.ref);
  if (live?.phase !== "Running" || live.recovery !== null || live.ranksRunning !== job.ranks) return false;
  const states = live.pods.flatMap((pod) => pod.ranks.map((rank) => rank.rule_states.JobHang));
  return states.length === job.ranks && states.every((state) => state === "HEALTHY");
}

export async function waitStepping(operator: BenchOperator, job: BenchJob, timeoutMs: number): Promise<void> {
  await operator.waitForJob(
    job.ref,
    `every rank of ${job.ref.name} stepping`,
    () => allStepping(operator, job),
    timeoutMs,
  );
}

/** Deletes the job and waits until it and every process of its pods are gone. */
export async function deleteJob(operator: BenchOperator, job: BenchJob): Promise<void> {
  await operator.backend.requestDeletion(job.ref);
  await operator.waitFor(
    `${job.ref.name} deleted`,
    async () => (await operator.backend.getJob(job.ref)) === null,
  );
  await operator.waitFor(`${job.ref.name} pods gone`, () => operator.backend.pods.list(job.ref).length === 0);
  // Only this job ran: every process the harness ever saw must be gone before the next job starts.
  await operator.waitFor("its processes gone", () => operator.alivePids().length === 0, 15_000);
}
