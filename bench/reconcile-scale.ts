import { parseArgs } from "node:util";
import type { ClusterBackend, ClusterJob, ClusterNode, ClusterPod } from "@/server/cluster/types";
import type { HyperPodPyTorchJob } from "@/server/domain/job-spec/job-spec.schema";
import type { AgentClient, AgentStatus } from "@/server/operator/agent-client";
import { createLiveState } from "@/server/operator/live-state";
import type { Presence, PushedView } from "@/server/operator/presence/presence";
import { detectFault } from "@/server/operator/reconcilers/detect";
import { type Observation, observe } from "@/server/operator/reconcilers/observe";
import { integerReader, stringOptions } from "./lib/flags";

/**
 * `npm run bench:reconcile [-- --rounds 200 --pods 256,2048,16384 --ranks-per-pod 8]`: what the operator's own thread spends on one reconcile's
 * look at a running job (observe, detectFault, the live state) as the job grows, all pods healthy but the
 * one a scenario breaks: quiet, one agent FAULTED, one node unhealthy. In process, no cluster: the pod
 * and node lists are answered from memory as the kubernetes back end's indexes answer them (the same
 * array while nothing changed), and every agent pushes (presence says which changed, as its thread does).
 *
 * Each case runs twice: as shipped (views kept between reconciles, detection reading the views that may
 * hold a fault) and as before part 5 of issue 18 (every view built and read on every reconcile: presence
 * that cannot say what changed, an observation without a detection index). Prints a table, then
 * `BENCH reconcile <json>`. CPU of an in-process loop: the operator's thread on this machine, not the
 * end-to-end latency (bench:k8s measures that on a real apiserver).
 */

const DEFAULTS = { rounds: "200", "ranks-per-pod": "8", pods: "256,2048,16384" } as const;
const { values } = parseArgs({ options: stringOptions(DEFAULTS), allowPositionals: false });
const int = integerReader(DEFAULTS, values);
const ROUNDS = int("rounds", 10);
const RANKS_PER_POD = int("ranks-per-pod", 1);
const SIZES = String(values.pods)
  .split(",")
  .map((text) => {
    const size = Number(text);
    if (!Number.isInteger(size) || size < 2) throw new Error(`--pods: expected job sizes >= 2, got ${text}`);
    return size;
  });

type Scenario = "quiet" | "agent faulted" | "node unhealthy";
type Mode = "as shipped" | "every view";

const jobOf = (pods: number): ClusterJob =>
  ({
    ref: { namespace: "bench", name: "job" },
    uid: "bench-job",
    createdAt: new Date(0),
    object: {
      metadata: { name: "job", namespace: "bench" },
      spec: { replicaSpecs: [{ name: "worker", replicas: pods, template: { spec: { containers: [] } } }] },
    } as unknown as HyperPodPyTorchJob,
  }) as ClusterJob;

const podOf = (index: number): ClusterPod => ({
  name: `job-worker-${index}`,
  namespace: "bench",
  job: "job",
  replicaSpec: "worker",
  index,
  node: `node-${index}`,
  phase: "Running",
  agentUrl: `http://10.0.${index >> 8}.${index & 255}:8080`,
  createdAt: 0,
  finishedAt: null,
});

const nodeOf = (index: number, health = "Schedulable"): ClusterNode => ({
  name: `node-${index}`,
  health,
  ready: true,
  gpus: 8,
  changedAt: 0,
});

/** A running agent's status as our agent pushes it: its ranks, each with a step, loss and last line. */
function runningStatus(pod: number): AgentStatus {
  const at = new Date(Date.now()).toISOString();
  return {
    status: "running",
    ranks: Array.from({ length: RANKS_PER_POD }, (_, local) => ({
      rank: pod * RANKS_PER_POD + local,
      local_rank: local,
      state: "running",
      pid: 1000 + local,
      step: 100,
      loss: 2.5,
      throughput: 1000,
      last_line_at: at,
    })),
  } as AgentStatus;
}

/** Presence as its thread's mirror answers it: a view per pod, and which changed since the last take. */
function presenceOf(size: number, tracks: boolean) {
  const views = new Map<string, PushedView>();
  for (let pod = 0; pod < size; pod += 1)
    views.set(`bench/job-worker-${pod}`, { kind: "status", status: runningStatus(pod) });
  const changed = new Set<string>();
  const presence: Presence = {
    sync: () => undefined,
    pushed: (pod) => views.get(`${pod.namespace}/${pod.name}`) ?? null,
    takeChanged: () => {
      if (!tracks) return null;
      const taken = new Set(changed);
      changed.clear();
      return taken;
    },
    forgetJob: () => undefined,
    onWake: () => () => undefined,
    stats: () => ({ pushing: size, polled: 0, probing: 0, silent: 0, lateTicks: 0, correlated: 0 }),
    stop: () => undefined,
  };
  const set = (pod: number, view: PushedView) => {
    views.set(`bench/job-worker-${pod}`, view);
    changed.add(`bench/job-worker-${pod}`);
  };
  return { presence, set };
}

const noAgents = { status: async () => ({ ok: false }) } as unknown as AgentClient;
const OPTIONS = { agentTimeoutMs: 3000, ranksPerNode: RANKS_PER_POD, podStartGraceMs: 30_000 };

/** One case: `ROUNDS` reconciles' look at the job, each breaking (then mending) what the scenario breaks. */
async function measure(size: number, scenario: Scenario, mode: Mode): Promise<number[]> {
  const job = jobOf(size);
  const pods = Object.freeze(Array.from({ length: size }, (_, index) => podOf(index)));
  const healthyNodes = Object.freeze(Array.from({ length: size }, (_, index) => nodeOf(index)));
  let nodes: readonly ClusterNode[] = healthyNodes;
  const backend = {
    listPods: async () => pods,
    listNodes: async () => nodes,
  } as unknown as ClusterBackend;
  const { presence, set } = presenceOf(size, mode === "as shipped");
  const live = createLiveState();
  const victim = Math.floor(size / 2);
  const look = async (): Promise<{ ms: number; found: boolean }> => {
    const start = performance.now();
    const obs: Observation = await observe({
      backend,
      agents: noAgents,
      failures: new Map(),
      job,
      now: Date.now(),
      presence,
    });
    if (mode === "every view") delete obs.index;
    const fault = detectFault(obs, OPTIONS);
    live.update("bench/job", {
      obs,
      phase: "Running",
      status: "Running",
      reason: null,
      recovery: null,
      restartCount: 0,
      ranksPerNode: RANKS_PER_POD,
    });
    return { ms: performance.now() - start, found: fault !== null };
  };
  await look();
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    if (scenario === "agent faulted")
      set(victim, { kind: "status", status: { status: "faulted", reason: "WorkerCrash" } as AgentStatus });
    if (scenario === "node unhealthy")
      nodes = Object.freeze(
        healthyNodes.map((node, at) => (at === victim ? nodeOf(at, "Unschedulable") : node)),
      );
    const { ms, found } = await look();
    if (found !== (scenario !== "quiet"))
      throw new Error(`${size} pods, ${scenario}, ${mode}: fault found: ${found}`);
    times.push(ms);
    // Mended for the next round (not timed), as the restart that follows would.
    set(victim, { kind: "status", status: runningStatus(victim) });
    nodes = healthyNodes;
    await look();
  }
  return times;
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;

async function main(): Promise<void> {
  const results: Record<string, { p50Us: number; p99Us: number }> = {};
  console.log(
    `one reconcile's look at a running job (observe + detectFault + live state), µs, ${ROUNDS} rounds, ${RANKS_PER_POD} ranks per pod`,
  );
  console.log(
    `${"pods".padEnd(8)}${"scenario".padEnd(18)}${"as shipped p50 / p99".padEnd(26)}every view read p50 / p99`,
  );
  for (const size of SIZES) {
    for (const scenario of ["quiet", "agent faulted", "node unhealthy"] as const) {
      const row: string[] = [];
      for (const mode of ["as shipped", "every view"] as const) {
        const sorted = (await measure(size, scenario, mode)).sort((a, b) => a - b);
        const p50Us = Math.round(percentile(sorted, 50) * 1000);
        const p99Us = Math.round(percentile(sorted, 99) * 1000);
        results[`${size} ${scenario} ${mode}`] = { p50Us, p99Us };
        row.push(`${p50Us.toLocaleString("en")} / ${p99Us.toLocaleString("en")}`);
      }
      console.log(
        `${String(size).padEnd(8)}${scenario.padEnd(18)}${(row[0] ?? "").padEnd(26)}${row[1] ?? ""}`,
      );
    }
  }
  console.log(`BENCH reconcile ${JSON.stringify(results)}`);
}

await main();
