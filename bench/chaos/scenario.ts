import type { ChaosApi } from "./api";
import type { ChaosConfig } from "./config";
import type { Stack } from "./stack";

/**
 * The soak's story, on the clock: the demo job runs from the start and takes a random fault every
 * `faultEveryMs`; an unstartable job is submitted at 10 %; the operator is stopped cleanly at 25 % and
 * 75 % and killed (SIGKILL) at 50 %, each time started again; the demo job is deleted and resubmitted
 * under the same name at 33 % and 66 %. Around each operator restart faults pause, so any restart the job
 * takes then was caused by the operator restart itself (a retry it should not have cost).
 */
export const DEMO = { namespace: "hyperpod-ns-llm-research", name: "demo-llm" };
const DEMO_FILE = "examples/jobs/demo-job.yaml";
const FAULTS = ["crash", "hang", "nan", "node"] as const;
const QUIET_AROUND_RESTART_MS = 20_000;

export const UNSTARTABLE_YAML = `apiVersion: sagemaker.amazonaws.com/v1
kind: HyperPodPyTorchJob
metadata:
  name: chaos-unstartable
  namespace: hyperpod-ns-vision
spec:
  nprocPerNode: "1"
  replicaSpecs:
    - name: workers
      replicas: 1
      template:
        spec:
          containers:
            - name: trainer
              image: rebound/demo:latest
              command: ["/bin/sh", "-c", "exec nonexistent-binary"]
`;

export type ChaosLog = {
  faultsInjected: number;
  faultsSkipped: number;
  operatorRestarts: Array<{ signal: string; restartCountBefore: number; restartCountAfter: number }>;
  resubmits: number;
  unstartableAccepted: boolean;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Where the demo job stands, for a timeout: its phase, status and reason, as the operator's API lists it. */
async function demoStory(api: ChaosApi): Promise<string> {
  const name = `${DEMO.namespace}/${DEMO.name}`;
  const jobs = await api.jobs().catch(() => null);
  if (jobs === null) return `${name}: the operator's API did not answer`;
  const demo = jobs.find((job) => job.namespace === DEMO.namespace && job.name === DEMO.name);
  if (!demo) return `${name} is not listed`;
  const why = demo.reason ? `: ${demo.reason}` : "";
  return `${name} is ${demo.phase} (${demo.status}${why}), ${demo.ranksRunning}/${demo.ranksTotal} ranks running`;
}

/** Waits for `what` about the demo job; on a timeout, says where the demo job stands. */
async function waitFor(
  api: ChaosApi,
  what: string,
  probe: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe().catch(() => false)) return;
    await sleep(500);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; ${await demoStory(api)}`);
}

async function demoRestartCount(api: ChaosApi): Promise<number> {
  const jobs = await api.jobs();
  return jobs.find((job) => job.namespace === DEMO.namespace && job.name === DEMO.name)?.restartCount ?? 0;
}

export async function submitDemo(api: ChaosApi): Promise<void> {
  const status = await api.submit(DEMO_FILE);
  if (status !== 201) throw new Error(`submitting ${DEMO_FILE} answered ${status}`);
  await waitFor(
    api,
    "the demo job's ranks to run",
    async () =>
      (await api.jobs()).some(
        (job) => job.name === DEMO.name && job.ranksRunning === job.ranksTotal && job.ranksTotal > 0,
      ),
    120_000,
  );
}

async function resubmit(api: ChaosApi): Promise<void> {
  await api.remove(DEMO.namespace, DEMO.name);
  await waitFor(
    api,
    "the demo job to be gone",
    async () => !(await api.exists(DEMO.namespace, DEMO.name)),
    60_000,
  );
  await submitDemo(api);
}

async function injectRandomFault(api: ChaosApi, log: ChaosLog): Promise<void> {
  const jobs = await api.jobs().catch(() => []);
  const demo = jobs.find((job) => job.name === DEMO.name && job.phase === "Running");
  if (!demo || demo.ranksTotal === 0) {
    log.faultsSkipped += 1;
    return;
  }
  const kind = FAULTS[Math.floor(Math.random() * FAULTS.length)] ?? "crash";
  const rank = Math.floor(Math.random() * demo.ranksTotal);
  const status = await api.fault(DEMO, { kind, rank }).catch(() => 0);
  if (status === 202) log.faultsInjected += 1;
  else log.faultsSkipped += 1;
}

async function restartOperator(
  deps: { api: ChaosApi; stack: Stack; log: ChaosLog },
  signal: "SIGTERM" | "SIGKILL",
) {
  await sleep(QUIET_AROUND_RESTART_MS);
  const before = await demoRestartCount(deps.api);
  await deps.stack.restartOperator(signal);
  await sleep(QUIET_AROUND_RESTART_MS);
  const after = await demoRestartCount(deps.api);
  deps.log.operatorRestarts.push({ signal, restartCountBefore: before, restartCountAfter: after });
}

type Step = { at: number; run: () => Promise<void> };

export async function runScenario(deps: {
  api: ChaosApi;
  stack: Stack;
  config: ChaosConfig;
  say: (line: string) => void;
}): Promise<ChaosLog> {
  const { api, stack, config, say } = deps;
  const log: ChaosLog = {
    faultsInjected: 0,
    faultsSkipped: 0,
    operatorRestarts: [],
    resubmits: 0,
    unstartableAccepted: false,
  };
  const steps: Step[] = [
    {
      at: 0.1,
      run: async () => {
        log.unstartableAccepted = (await api.submitYaml(UNSTARTABLE_YAML)) === 201;
      },
    },
    { at: 0.25, run: () => restartOperator({ api, stack, log }, "SIGTERM") },
    {
      at: 1 / 3,
      run: async () => {
        await resubmit(api);
        log.resubmits += 1;
      },
    },
    { at: 0.5, run: () => restartOperator({ api, stack, log }, "SIGKILL") },
    {
      at: 2 / 3,
      run: async () => {
        await resubmit(api);
        log.resubmits += 1;
      },
    },
    { at: 0.75, run: () => restartOperator({ api, stack, log }, "SIGTERM") },
  ];
  const started = Date.now();
  let nextFault = started + config.faultEveryMs;
  while (Date.now() - started < config.durationMs) {
    const step = steps[0];
    if (step && Date.now() - started >= step.at * config.durationMs) {
      steps.shift();
      say(`t=${Math.round((Date.now() - started) / 1000)} s: step at ${Math.round(step.at * 100)} %`);
      await step.run();
      nextFault = Date.now() + config.faultEveryMs;
      continue;
    }
    if (Date.now() >= nextFault) {
      await injectRandomFault(api, log);
      nextFault = Date.now() + config.faultEveryMs;
    }
    await sleep(250);
  }
  return log;
}
