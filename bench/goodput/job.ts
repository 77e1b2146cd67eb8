import YAML from "yaml";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import type { Mode } from "./config";

/**
 * The measured job, one per mode, identical but for its recovery:
 * - full: numRestartBeforeFullJobRestart 0, so every fault restarts the whole job from its checkpoint (what
 *   a plain Kubernetes Job gets: its pods recreated, every rank reloading). Faults are detected by Rebound's
 *   agents all the same (a plain Job would not notice a hang at all): only the recovery differs.
 * - inplace: Rebound's normal recovery: in-place process restart (PLR) of every rank from the checkpoint for
 *   a crash, hang or NaN; pod replacement for a node.
 * - peer: the agents run HyperPod's in-process mode (`--inprocess-restart`, INPROCESS_RESTART=1 as
 *   HyperPod's examples set it) and the trainer restores a restarted rank from a healthy peer
 *   (`--peer-recovery`) instead of the checkpoint; Rebound's `--early-worker-restart` restarts a rank
 *   that fails on its own (crash, hang, NaN) alone and before the operator's /stop, the node's other ranks
 *   keeping their processes.
 * Every agent copies its ranks' output into its own log (`--tee 3`), where the benchmark reads the step
 * lines, and faults on every rank's log rules (hangs and NaNs are injected into any rank, not only local
 * rank 0). The restart budget lasts the whole run.
 */
type Container = { command: string[]; args: string[]; env?: { name: string; value: string }[] };
type JobDoc = {
  spec: {
    replicaSpecs: { template: { spec: { containers: Container[] } } }[];
    runPolicy: Record<string, unknown> & { restartPolicy: Record<string, unknown> };
  };
};

const BUDGET = 1000;

function setUp(container: Container, input: { mode: Mode; checkpointEvery: number }): void {
  const env = [{ name: "REBOUND_LOG_RULES_ALL_RANKS", value: "true" }];
  container.args.push("--checkpoint-every", String(input.checkpointEvery));
  if (input.mode === "peer") {
    // A bound on the pause, as a user sets it: without one HyperPod's agent (and ours) waits for paused ranks
    // forever. (A rank that never answered job_fault held a whole recovery for minutes in one run: it got the
    // job_fault while restoring its state and dropped it; the trainer keeps it now, fault-latch.ts.)
    // Rebound's opt-in: a failed rank is restarted alone as soon as it fails, not with its node's other
    // workers after the operator's /stop.
    container.command.push("--inprocess-restart", "--inprocess-timeout", "10", "--early-worker-restart");
    container.args.push("--peer-recovery");
    env.push({ name: "INPROCESS_RESTART", value: "1" });
  }
  container.env = [...(container.env ?? []), ...env];
}

export function goodputJobYaml(input: {
  name: string;
  mode: Mode;
  nodes: number;
  ranksPerNode: number;
  stepMs: number;
  hangSeconds: number;
  checkpointEvery: number;
}): string {
  const doc = YAML.parse(
    demoJobYaml({
      name: input.name,
      nodes: input.nodes,
      ranks: input.ranksPerNode,
      stepMs: input.stepMs,
      hangSeconds: input.hangSeconds,
      restartsBeforeFullRestart: input.mode === "full" ? 0 : BUDGET,
      tee: true,
    }),
  ) as JobDoc;
  for (const replica of doc.spec.replicaSpecs)
    for (const container of replica.template.spec.containers) setUp(container, input);
  doc.spec.runPolicy.jobMaxRetryCount = BUDGET;
  doc.spec.runPolicy.restartPolicy.maxFullJobRestarts = BUDGET;
  return YAML.stringify(doc);
}
