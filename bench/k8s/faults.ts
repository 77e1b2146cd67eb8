import { LABEL_JOB } from "@/server/cluster/kubernetes/objects";
import { waitUntil } from "@/server/cluster/kubernetes/testing/kube-env";
import type { JobRef } from "@/server/cluster/types";
import { listRestartEvents, type RestartEventRow } from "@/server/store/restart-events/queries";
import type { BenchSignalSource } from "./config";
import type { BenchEnvironment } from "./environment";
import { runningSince } from "./job";

/**
 * Sets and clears one source's signal on a node; `settleMs`: how long the operator takes to see a clear;
 * `jitterMs`: a random wait up to this long more before the next set (a scrape interval for dcgm).
 */
export type NodeSignalSetter = {
  source: BenchSignalSource;
  jitterMs: number;
  set(node: string): Promise<unknown>;
  clear(node: string): Promise<unknown>;
  settleMs: number;
};

/**
 * One node failure: a node that hosts one of the job's pods is labelled UnschedulablePendingReboot (the
 * HyperPod health label), and the clock runs from that write to (a) the bench's watch seeing the
 * replacement pod (same name, new uid) and (b) the job Running again (its RestartEvent recovered, the
 * Running condition True again). Then the node is labelled Schedulable again. With `signal`, another
 * source's signal is set and cleared instead of the label (bench/k8s/node-signal.ts).
 */
export const UNHEALTHY = "UnschedulablePendingReboot";

export type FaultSample = {
  node: string;
  pods: string[];
  /** Just before the label patch was sent / once it was answered (this process's clock). */
  patchSentAt: number;
  patchDoneAt: number;
  /** When the watch first saw each replacement pod; the last of them. */
  replacedAt: number;
  replacementNodes: string[];
  event: RestartEventRow;
  /**
   * The operator's decision as its Warning event said it (with any crash-loop "back-off N s"; the restart
   * row's message is replaced by "remediated in …" once the job runs again).
   */
  decision: string;
  /** When the Running condition was True again (its lastTransitionTime). */
  runningAt: number;
  /** The node signal's source (bench/k8s/node-signal.ts); "hyperpod" for the label. */
  source: string;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The job's pods on a node picked at random, the node not faulted before when possible. */
function pickVictim(env: BenchEnvironment, ref: JobRef, used: Set<string>): { node: string; pods: string[] } {
  const byNode = new Map<string, string[]>();
  for (const pod of env.pods.informer.list()) {
    const node = pod.spec?.nodeName;
    if (!node || pod.metadata?.deletionTimestamp || pod.metadata?.labels?.[LABEL_JOB] !== ref.name) continue;
    byNode.set(node, [...(byNode.get(node) ?? []), pod.metadata?.name ?? ""]);
  }
  const fresh = [...byNode.keys()].filter((node) => !used.has(node));
  const candidates = fresh.length > 0 ? fresh : [...byNode.keys()];
  const node = candidates[Math.floor(Math.random() * candidates.length)];
  if (!node) throw new Error("no node hosts a pod of the job");
  return { node, pods: byNode.get(node) ?? [] };
}

async function waitForReplacements(input: {
  env: BenchEnvironment;
  pods: string[];
  before: Map<string, number>;
  timeoutMs: number;
}) {
  const { env, before, timeoutMs } = input;
  const victim = { pods: input.pods };
  const sightings = await waitUntil(
    `replacement pods for ${victim.pods.join(", ")}`,
    () => {
      const latest = victim.pods.map((pod) => env.pods.sightings(pod).at(before.get(pod) ?? 0));
      return latest.every((sighting) => sighting !== undefined)
        ? latest.flatMap((s) => (s ? [s] : []))
        : null;
    },
    timeoutMs,
  );
  return {
    replacedAt: Math.max(...sightings.map((sighting) => sighting.seenAt)),
    replacementNodes: sightings.map((sighting) => sighting.node),
  };
}

async function waitForRecovery(input: {
  env: BenchEnvironment;
  ref: JobRef;
  node: string;
  after: number;
  timeoutMs: number;
}) {
  const { env, ref } = input;
  const event = await waitUntil(
    `the restart for node ${input.node} to settle`,
    async () => {
      const events = await listRestartEvents(env.db, { namespace: ref.namespace, jobName: ref.name });
      const mine = events.filter((row) => row.node === input.node && row.detectedAt.getTime() >= input.after);
      const settled = mine.at(-1);
      return settled && settled.outcome !== "pending" ? settled : null;
    },
    input.timeoutMs,
  );
  if (event.outcome !== "recovered")
    throw new Error(`the restart for node ${input.node} ended ${event.outcome}: ${event.message}`);
  const runningAt = await waitUntil(
    "the Running condition to be True again",
    async () => {
      const since = runningSince(await env.kube.readJob(ref));
      return since !== null && since >= input.after ? since : null;
    },
    input.timeoutMs,
  );
  return { event, runningAt };
}

export async function injectNodeFault(input: {
  env: BenchEnvironment;
  ref: JobRef;
  used: Set<string>;
  timeoutMs: number;
  signal?: NodeSignalSetter;
}): Promise<FaultSample> {
  const { env, ref, timeoutMs } = input;
  const signal: NodeSignalSetter = input.signal ?? {
    source: "hyperpod",
    set: (node: string) => env.kube.setNodeHealth(node, UNHEALTHY),
    clear: (node: string) => env.kube.setNodeHealth(node, "Schedulable"),
    settleMs: 1500,
    jitterMs: 0,
  };
  const victim = pickVictim(env, ref, input.used);
  input.used.add(victim.node);
  const before = new Map(victim.pods.map((pod) => [pod, env.pods.sightings(pod).length]));
  const patchSentAt = Date.now();
  await signal.set(victim.node);
  const patchDoneAt = Date.now();
  const replaced = await waitForReplacements({ env, pods: victim.pods, before, timeoutMs });
  const recovered = await waitForRecovery({ env, ref, node: victim.node, after: patchSentAt, timeoutMs });
  // Event times are whole seconds: the newest Warning naming the node, from the second of the fault on.
  const warnings = await env.kube.jobWarnings(ref);
  const decision =
    warnings.filter((w) => w.at >= patchSentAt - 1000 && w.message.includes(victim.node)).at(-1)?.message ??
    "";
  await signal.clear(victim.node);
  // Let the operator see the node healthy again before the next fault.
  // A random wait more for a scraped signal: the next set must not keep one phase of the scrape cycle.
  await sleep(signal.settleMs + Math.random() * signal.jitterMs);
  return { ...victim, patchSentAt, patchDoneAt, ...replaced, ...recovered, decision, source: signal.source };
}
