import { buildKubeTestCluster } from "@/e2e/kube/cluster";
import { waitUntil } from "@/server/cluster/kubernetes/testing/kube-env";
import type { JobRef } from "@/server/cluster/types";
import { MAX_RESTARTS_ANNOTATION } from "@/server/domain/recovery/crash-loop";
import { parseConfig as parseK8sConfig } from "../k8s/config";
import { type BenchEnvironment, createLifecycle, NAMESPACE, openEnvironment } from "../k8s/environment";
import { JOB_NAME, liveRanksRunning, startJob } from "../k8s/job";
import { whileOperatorRuns } from "../k8s/operator";
import type { EttrConfig } from "./config";
import {
  addDecisions,
  type ControlPlaneFault,
  measureFullRestart,
  measureNodeFault,
  measureRankCrash,
} from "./measure";
import type { Measured } from "./report";

/**
 * The measured half of bench:ettr: bench:k8s's environment (the real apiserver + etcd + KWOK, the operator
 * as its own process, stand-in agents whose ranks step every --step-ms), one job of --pods pods × 8 ranks,
 * then --faults node faults and --faults rank crashes in turns, then --full-restarts full restarts
 * (bench/ettr/measure.ts). Everything started is
 * stopped at the end, on failure and when bench/ettr.ts's channel closes (Ctrl-C).
 */
const RANKS_PER_POD = 8;
const RESERVE_MS = 30_000;
const FAULT_MS = 60_000;
const FULL_RESTART_MS = 180_000;

export async function measureControlPlane(
  config: EttrConfig,
  log: (line: string) => void,
): Promise<Measured> {
  const life = createLifecycle(log);
  process.on("disconnect", () => {
    log("interrupted: stopping every process and removing the temp dirs");
    void life.close().finally(() => process.exit(130));
  });
  try {
    await buildKubeTestCluster({ log });
    const began = Date.now();
    const left = () => config.budgetS * 1000 - (Date.now() - began);
    const k8s = parseK8sConfig([
      ...["--nodes", String(config.pods), "--gpus-per-node", String(RANKS_PER_POD)],
      ...["--faults", String(config.faults), "--step-ms", String(config.stepMs)],
      ...(config.verbose ? ["--verbose"] : []),
    ]);
    const env = await openEnvironment({ config: k8s, life, log, agentStepMs: config.stepMs });
    const faults = await Promise.race([
      whileOperatorRuns(env.operator, runFaults({ env, config, left, log })),
      env.agents.exited,
    ]);
    await addDecisions({
      auditLogPath: env.cluster.auditLogPath,
      ref: { namespace: NAMESPACE, name: JOB_NAME },
      faults,
      log,
    });
    const stepping = (kind: ControlPlaneFault["kind"]) =>
      faults.filter((f) => f.kind === kind && Number.isFinite(f.steppingMs)).map((f) => f.steppingMs);
    return {
      pods: config.pods,
      ranksPerPod: RANKS_PER_POD,
      replaceMs: stepping("node"),
      inplaceMs: stepping("rank"),
      fullMs: stepping("job"),
      faults,
      source: "this run",
    };
  } finally {
    log("cleaning up");
    await life.close();
  }
}

/** What a measurement goes on with: the environment, the knobs, the budget left (ms) and the log. */
type Run = { env: BenchEnvironment; config: EttrConfig; left: () => number; log: (line: string) => void };

async function runFaults(run: Run): Promise<ControlPlaneFault[]> {
  const { env, config, left, log } = run;
  const ranks = config.pods * RANKS_PER_POD;
  log(
    `creating the ${ranks}-rank job (${config.pods} pods × ${RANKS_PER_POD}), ranks stepping every ${config.stepMs} ms…`,
  );
  const job = await startJob(env, {
    nodes: config.pods,
    gpusPerNode: RANKS_PER_POD,
    timeoutMs: left() - RESERVE_MS,
    // Faults seconds apart, not hours: no crash-loop back-off or bound (0), no escalation to a full restart.
    annotations: { [MAX_RESTARTS_ANNOTATION]: "0" },
    restartsBeforeFullRestart: 1_000_000,
  });
  log(`job Running ${job.runningAt - job.createdAt} ms after it was created`);
  await waitUntil(
    "the operator to report every rank running",
    async () => (await liveRanksRunning(env, job.ref)) === ranks,
    60_000,
  );
  const faults = await measureInTurns(run, job.ref);
  return [...faults, ...(await measureFullRestarts(run, job.ref))];
}

async function measureInTurns(run: Run, ref: JobRef): Promise<ControlPlaneFault[]> {
  const { env, config, left, log } = run;
  const faults: ControlPlaneFault[] = [];
  const used = new Set<string>();
  for (let i = 0; i < config.faults; i++) {
    for (const kind of ["node", "rank"] as const) {
      if (left() < FAULT_MS + RESERVE_MS) {
        log(`budget: stopping after ${faults.length} of ${config.faults * 2} faults`);
        return faults;
      }
      const timeoutMs = Math.min(120_000, left() - RESERVE_MS);
      const fault =
        kind === "node"
          ? await measureNodeFault({ env, ref, used, timeoutMs, pods: config.pods })
          : await measureRankCrash({ env, ref, timeoutMs, pods: config.pods });
      faults.push(fault);
      log(
        `${kind} fault ${i + 1}/${config.faults} on ${fault.node} (${fault.action}): detected ${Math.round(fault.detectedMs)} ms, every rank stepping ${Math.round(fault.steppingMs)} ms, Running ${Math.round(fault.runningMs)} ms (${fault.restartedPods}/${fault.answeredPods} pods restarted)`,
      );
    }
  }
  return faults;
}

async function measureFullRestarts(run: Run, ref: JobRef): Promise<ControlPlaneFault[]> {
  const { env, config, left, log } = run;
  const restarts: ControlPlaneFault[] = [];
  for (let i = 0; i < config.fullRestarts; i++) {
    if (left() < FULL_RESTART_MS + RESERVE_MS) {
      log(`budget: stopping after ${restarts.length} of ${config.fullRestarts} full restarts`);
      break;
    }
    // A full restart that does not settle is reported and left out: the faults above still stand.
    const restart = await measureFullRestart({
      env,
      ref,
      timeoutMs: Math.min(FULL_RESTART_MS, left() - RESERVE_MS),
      pods: config.pods,
    }).catch((error: unknown) => {
      log(`full restart ${i + 1}/${config.fullRestarts} not measured: ${String(error)}`);
      return null;
    });
    if (!restart) break;
    restarts.push(restart);
    log(
      `full restart ${i + 1}/${config.fullRestarts}: every rank stepping ${Math.round(restart.steppingMs)} ms, Running ${Math.round(restart.runningMs)} ms (${restart.restartedPods}/${restart.answeredPods} pods restarted)`,
    );
  }
  return restarts;
}
