import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createDb, type Db } from "@/server/db/client";
import { startEmbeddedPostgres } from "@/server/db/embedded";
import { migrate } from "@/server/db/migrate";
import { seedIfEmpty } from "@/server/db/seed";
import { createLogger } from "@/server/log";
import { type AgentsProcesses, startAgentsProcesses } from "./agents";
import { type AuditedCluster, startAuditedCluster } from "./cluster";
import type { BenchConfig } from "./config";
import { type BenchDcgm, startBenchDcgm } from "./dcgm";
import { type BenchKube, benchKube, type PodWatch } from "./kube";
import type { Lifecycle } from "./lifecycle";
import { type OperatorProcess, startOperatorProcess } from "./operator";
import { type ProcWatch, watchProc } from "./proc";

// Other benches (bench/abuse, bench/tv, bench/console) take the lifecycle from here.
export { createLifecycle, type Lifecycle } from "./lifecycle";

/**
 * Everything the benchmark runs against, started in order: the audited cluster, CRD, namespaces and KWOK
 * nodes; an embedded PostgreSQL (migrated, seeded); the stand-in agents' processes; the operator's process;
 * the bench's own watch on the job's pods. `close()` undoes whatever was started, in reverse, once, however
 * far the start got (a failure or Ctrl-C half-way included); each step is bounded so a stuck one cannot
 * keep the rest from being cleaned up.
 */
export const NAMESPACE = "hyperpod-ns-llm-research";
export const OPERATOR_USER = "rebound-operator";
export const AGENTS_USER = "rebound-stand-in-agents";

export type BenchEnvironment = {
  cluster: AuditedCluster;
  clusterProc: ProcWatch;
  kube: BenchKube;
  db: Db;
  databaseUrl: string;
  agents: AgentsProcesses;
  operator: OperatorProcess;
  pods: PodWatch;
  nodes: string[];
  /** With --node-signal dcgm: the stand-in DCGM exporter for every node and the Prometheus scraping it. */
  dcgm: BenchDcgm | null;
  /** Set-up steps and how long each took (ms). */
  steps: [string, number][];
};

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export async function openEnvironment(input: {
  config: BenchConfig;
  life: Lifecycle;
  log: (line: string) => void;
  /** Stand-in ranks report a new step this often (default: static). */
  agentStepMs?: number;
}): Promise<BenchEnvironment> {
  const { config, life, log } = input;
  const steps: [string, number][] = [];
  const step = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const began = Date.now();
    log(`${name}…`);
    const result = await work();
    steps.push([name, Date.now() - began]);
    return result;
  };
  const dir = await mkdtemp(path.join(tmpdir(), "rebound-bench-k8s-"));
  life.defer("remove the temp dir", () => rm(dir, { recursive: true, force: true }));
  const users = [OPERATOR_USER, AGENTS_USER].map((user) => ({
    user,
    token: randomBytes(24).toString("hex"),
  }));
  const clusterLog = config.verbose ? (line: string) => process.stderr.write(`[kube] ${line}\n`) : () => {};
  const cluster = await step("start the cluster (apiserver + etcd + KWOK, audit log on)", () =>
    startAuditedCluster({ dataDir: path.join(dir, "kube"), users, log: clusterLog }),
  );
  life.defer("stop the cluster", () => cluster.stop());
  const kube = benchKube(cluster.kubeconfigPath);
  const total = config.nodes + config.spareNodes;
  const nodes = Array.from({ length: total }, (_, i) => `kwok-node-${String(i).padStart(3, "0")}`);
  await step(`install the CRD, namespaces and ${total} KWOK nodes × ${config.gpusPerNode} GPUs`, () =>
    kube.setUp({ namespaces: [NAMESPACE, "rebound-system"], nodes, gpusPerNode: config.gpusPerNode }),
  );
  const database = await step("start PostgreSQL, migrate, seed", async () => {
    const started = await startEmbeddedPostgres({ dataDir: dir });
    life.defer("stop PostgreSQL", () => started.stop());
    await migrate(started.url);
    return started;
  });
  const db = createDb(database.url);
  life.defer("disconnect from PostgreSQL", () => db.$disconnect());
  await seedIfEmpty(db);
  const dcgm = config.nodeSignals.includes("dcgm")
    ? await step(`start a stand-in DCGM exporter and Prometheus (scrape every ${config.scrapeMs} ms)`, () =>
        startBenchDcgm({ nodes, gpusPerNode: config.gpusPerNode, scrapeMs: config.scrapeMs, life }),
      )
    : null;
  const [operatorUser, agentsUser] = users as [(typeof users)[0], (typeof users)[0]];
  const agents = await step(
    `start the stand-in agents (${plural(config.agentProcesses, "process", "processes")})`,
    async () =>
      startAgentsProcesses({
        kubeconfigPath: await cluster.kubeconfigFor(agentsUser),
        // Next to the operator's log when that is kept (its stalls explain late heartbeats), else the temp dir.
        logFile: config.operatorLog
          ? path.join(path.dirname(path.resolve(config.operatorLog)), "agents.log")
          : path.join(dir, "agents.log"),
        processes: config.agentProcesses,
        stepMs: input.agentStepMs,
      }),
  );
  life.defer("stop the stand-in agents", () => agents.stop());
  const operator = await step("start the operator process", async () =>
    startOperatorProcess({
      kubeconfigPath: await cluster.kubeconfigFor(operatorUser),
      token: operatorUser.token,
      databaseUrl: database.url,
      pollMs: config.pollMs,
      nodeArgs: config.operatorNodeArgs,
      logFile: config.operatorLog ? path.resolve(config.operatorLog) : path.join(dir, "operator.log"),
      verbose: config.verbose,
      env: dcgm ? { PROMETHEUS_URL: dcgm.prometheus.url } : {},
    }),
  );
  life.defer("stop the operator", () => operator.stop());
  const pods = await kube.watchPods(createLogger({ service: "bench-k8s" }));
  life.defer("stop the pod watch", () => pods.stop());
  const clusterProc = watchProc(cluster.pid);
  life.defer("stop sampling", () => {
    clusterProc.stop();
    operator.proc.stop();
    agents.proc.stop();
  });
  return {
    cluster,
    clusterProc,
    kube,
    db,
    databaseUrl: database.url,
    agents,
    operator,
    pods,
    nodes,
    dcgm,
    steps,
  };
}
