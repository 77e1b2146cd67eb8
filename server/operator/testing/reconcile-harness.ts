import type { ClusterJob, ClusterNode, JobRef } from "@/server/cluster/types";
import { jobKey } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import { parseJobYaml } from "@/server/domain/job-spec/parse-job";
import type { Logger } from "@/server/log";
import { createLiveState } from "@/server/operator/live-state";
import { createOperatorMetrics } from "@/server/operator/metrics";
import { DEFAULT_OPERATOR_CONFIG, type OperatorDeps } from "@/server/operator/reconcilers/deps";
import { type ReboundState, readState } from "@/server/operator/reconcilers/job-state";
import { createLedger } from "@/server/operator/reconcilers/ledger";
import { reconcileJob } from "@/server/operator/reconcilers/reconcile-job";
import { createManualRequests } from "@/server/operator/requests";
import type { RestartEventStore } from "@/server/store/restart-events/store";
import { type CallLog, createCallLog, instrument } from "./call-faults";
import { createFakeAgents, type FakeAgents } from "./fake-agents";
import { createFakeCluster, type FakeCluster } from "./fake-cluster";
import { createFakeRestartEvents, type FakeRestartEvents } from "./fake-restart-events";

/**
 * The reconciler on in-memory fakes, for unit tests: a cluster (what survives an operator restart: the
 * job's status, pods, nodes, events), the agents, and the restart timeline (or a real store), each call
 * logged and able to fail (call-faults.ts). `crash()` drops everything the operator process held in
 * memory (metrics, ledger, failure clocks, manual requests) and starts a new one on what was persisted.
 */
export type ReconcileHarness = {
  ref: JobRef;
  cluster: FakeCluster;
  agents: FakeAgents;
  store: FakeRestartEvents;
  log: CallLog;
  /** The operator process now running, and every one so far (the last is the current one). */
  deps(): OperatorDeps;
  processes: OperatorDeps[];
  reconcile(): Promise<void>;
  crash(): void;
  /** The job's persisted bookkeeping (status.rebound). */
  state(): ReboundState;
  agentUrl(pod: string): string;
  clock(): number;
  /** Moves the clock on (each reading also moves it 1 ms). */
  advance(ms: number): void;
};

const silent: Logger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silent,
};

/** The unit tests' operator has no database: any use of one is a test bug, said plainly. */
const noDatabase = new Proxy(
  {},
  {
    get(_target, property) {
      throw new Error(`the reconcile harness has no database (db.${String(property)} was used)`);
    },
  },
) as Db;

function clusterJob(yaml: string): ClusterJob {
  const parsed = parseJobYaml(yaml);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  const { name, namespace } = parsed.job.metadata;
  return {
    ref: { namespace: namespace ?? "default", name },
    uid: "00000000-0000-4000-8000-000000000001",
    generation: 1,
    createdAt: new Date(0),
    object: parsed.job,
    status: {},
    deleting: false,
  };
}

export function createReconcileHarness(opts: {
  yaml: string;
  nodes: number;
  gpusPerNode: number;
  /** The restart timeline the operator writes to (default: an in-memory one, `store`). */
  restartEvents?: RestartEventStore;
}): ReconcileHarness {
  let time = 1_700_000_000_000;
  const clock = () => {
    time += 1;
    return time;
  };
  const job = clusterJob(opts.yaml);
  const nodes: ClusterNode[] = Array.from({ length: opts.nodes }, (_, index) => ({
    name: `node-${index}`,
    health: "Schedulable",
    ready: true,
    gpus: opts.gpusPerNode,
    changedAt: 0,
  }));
  const agents = createFakeAgents();
  const cluster = createFakeCluster({ job, nodes, agents, clock });
  const store = createFakeRestartEvents();
  const log = createCallLog();
  const start = (): OperatorDeps => ({
    backend: instrument(cluster, "backend", log),
    agents: instrument(agents, "agents", log),
    db: noDatabase,
    restartEvents: instrument(opts.restartEvents ?? store, "db", log),
    metrics: createOperatorMetrics(),
    ledger: createLedger(),
    live: createLiveState(),
    failures: new Map(),
    requests: createManualRequests(),
    clock,
    config: { ...DEFAULT_OPERATOR_CONFIG },
    log: silent,
  });
  const processes = [start()];
  const current = () => processes[processes.length - 1] ?? processes[0] ?? start();
  return {
    ref: job.ref,
    cluster,
    agents,
    store,
    log,
    deps: current,
    processes,
    async reconcile() {
      await reconcileJob(current(), jobKey(job.ref));
    },
    crash: () => processes.push(start()),
    state: () => readState(cluster.status(), 0),
    agentUrl(pod) {
      const url = cluster.pod(pod)?.agentUrl;
      if (!url) throw new Error(`pod ${pod} has no agent`);
      return url;
    },
    clock,
    advance(ms) {
      time += ms;
    },
  };
}

/** Reconciles until `done` holds (true) or `rounds` reconciles have passed (false). */
export async function reconcileUntil(
  h: ReconcileHarness,
  done: () => boolean,
  rounds = 20,
): Promise<boolean> {
  for (let round = 0; round < rounds; round += 1) {
    await h.reconcile();
    if (done()) return true;
  }
  return false;
}
