import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants, existsSync, mkdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localPodEnv } from "@/server/cluster/local/agent-command";
import { hostEnvironment } from "@/server/cluster/local/host-env";
import type { ClusterJob } from "@/server/cluster/types";
import { parseJobYaml } from "@/server/domain/job-spec/parse-job";
import { findFreePort } from "@/server/http/free-port";
import { type AgentStatus, createAgentClient } from "@/server/operator/agent-client";
import { ensureHyperPodAgent, HYPERPOD_AGENT_VERSION, type HyperPodAgent } from "@/test/hyperpod-agent";
import { HYPERPOD_WORKER_PY } from "./testing/hyperpod-worker";
import { onePodSteps } from "./testing/one-pod-steps";

/**
 * AWS's unmodified hyperpod-elastic-agent (PyPI, run as `hyperpodrun`, CPU only) driven by the operator:
 * its agent client, its reconcile step that sends /start (startAgents: faultCount, rendezvous, rankIps,
 * the job's log rules) and its fault detection (detectFault) over the real /status. Start → RUNNING, a
 * worker crash → FAULTED/WorkerCrash → in-place restart with faultCount + 1, a log rule that stops
 * matching → LogHang_<rule>, a graceful stop (SIGUSR1), shutdown. The pod environment is the local back
 * end's (localPodEnv: NNODES as HyperPod's operator injects it). The local back end runs our own agent for
 * `hyperpodrun` commands (agent-command.ts), so this agent is started here, outside any back end.
 * The first run installs the agent (about 2.6 GB of wheels, see test/hyperpod-agent.ts); later runs reuse it.
 */
const JOB_YAML = `apiVersion: sagemaker.amazonaws.com/v1
kind: HyperPodPyTorchJob
metadata:
  name: conformance
spec:
  nprocPerNode: "1"
  replicaSpecs:
    - name: pods
      replicas: 1
      template:
        spec:
          containers:
            - name: trainer
              command: [hyperpodrun, --nnodes=1, --nproc-per-node=1, train.py]
  runPolicy:
    logMonitoringConfiguration:
      - name: Steps
        logPattern: ".*step.*"
        expectedRecurringFrequencyInSeconds: 2
`;
const RULE_NAME = "Steps";
const INSTALL_TIMEOUT_MS = 20 * 60_000;
/** hyperpodrun 1.1.3 writes the rank → IP table here; the path is hard-coded (not configurable). */
const RESOURCE_CONFIG_DIR = "/opt/ml/input/config";
const RESOURCE_CONFIG = path.join(RESOURCE_CONFIG_DIR, "pod_resourceconfig.json");
let resourceConfigExisted = false;

const client = createAgentClient({ timeoutMs: 5000 });
let agent: HyperPodAgent;
let dir: string;
let ctl: string;
let proc: ChildProcess;
let url: string;
let agentOutput: () => string;
let exited: Promise<number | null>;
let steps: ReturnType<typeof onePodSteps>;
const masterPort = "29511";

function clusterJob(): ClusterJob {
  const parsed = parseJobYaml(JOB_YAML);
  if (!parsed.ok) throw new Error("the job fixture does not parse");
  const job = parsed.job;
  const ref = { namespace: "default", name: "conformance" };
  return { ref, uid: "u", generation: 1, createdAt: new Date(), object: job, status: {}, deleting: false };
}

function podEnv(): NodeJS.ProcessEnv {
  const { NNODES: _hostValue, ...host } = hostEnvironment();
  return localPodEnv({ host, job: clusterJob().object, containers: [], extra: {} });
}

function spawnAgent(env: NodeJS.ProcessEnv, port: number): { child: ChildProcess; output: () => string } {
  const child = spawn(
    agent.hyperpodrun,
    [
      "--nnodes=1",
      "--nproc-per-node=1",
      "--server-host=127.0.0.1",
      `--server-port=${port}`,
      "--tee=3",
      `--log_dir=${path.join(dir, "logs")}`,
      path.join(dir, "train.py"),
      ctl,
    ],
    { env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  return { child, output: () => output };
}

const exitOf = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

async function waitForStatus(what: string, accept: (status: AgentStatus) => boolean, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  let last = "no answer yet";
  while (Date.now() < deadline) {
    const result = await client.status(url);
    if (result.ok && accept(result.value)) return result.value;
    last = result.ok ? JSON.stringify(result.value) : `${result.error.cause}: ${result.error.detail}`;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(
    `timed out waiting for ${what}; last /status: ${last}\nagent output:\n${agentOutput().slice(-3000)}`,
  );
}

const inState = (state: AgentStatus["status"]) => (status: AgentStatus) => status.status === state;

function workerEnv(restart: number): Record<string, string | null> {
  const file = path.join(ctl, `env-${restart}.json`);
  return JSON.parse(readFileSync(file, "utf8")) as Record<string, string | null>;
}

/** The operator's startAgents against the READY agent, as a reconcile after `faultCount` restarts. */
async function startAt(faultCount: number): Promise<{ running: AgentStatus; ipVersion: string | undefined }> {
  const ready = await waitForStatus("READY", inState("ready"));
  const started = await steps.start({ status: ready, restartCount: faultCount, now: Date.now() });
  expect(started.rendezvous).toMatchObject({ addr: "127.0.0.1", port: masterPort });
  const running = await waitForStatus("RUNNING", inState("running"));
  await waitForStatus(`worker of restart ${faultCount}`, () =>
    existsSync(path.join(ctl, `env-${faultCount}.json`)),
  );
  return { running, ipVersion: started.rendezvous?.ipVersion };
}

async function stopToReady(body: Parameters<typeof client.stop>[1]): Promise<AgentStatus> {
  const stopped = await client.stop(url, body);
  expect(stopped.ok).toBe(true);
  return waitForStatus("READY after /stop", inState("ready"));
}

/** Fails with one line when hyperpodrun could not write its IP table (it would exit at start). */
function checkResourceConfigDir(): void {
  try {
    mkdirSync(RESOURCE_CONFIG_DIR, { recursive: true });
    accessSync(RESOURCE_CONFIG_DIR, constants.W_OK);
  } catch {
    throw new Error(`hyperpodrun needs a writable ${RESOURCE_CONFIG_DIR}: run the test as root or create it`);
  }
  resourceConfigExisted = existsSync(RESOURCE_CONFIG);
}

beforeAll(async () => {
  checkResourceConfigDir();
  agent = await ensureHyperPodAgent();
  dir = await mkdtemp(path.join(tmpdir(), "rebound-hyperpodrun-"));
  ctl = path.join(dir, "ctl");
  await writeFile(path.join(dir, "train.py"), HYPERPOD_WORKER_PY);
  await mkdir(ctl);
  const port = await findFreePort();
  url = `http://127.0.0.1:${port}`;
  steps = onePodSteps({ job: clusterJob(), agentUrl: url, agents: client, masterPort });
  // The agent's own temporary files (log agent log, IPC socket, log dirs) go under dir, removed after.
  const spawned = spawnAgent({ ...podEnv(), TMPDIR: dir }, port);
  proc = spawned.child;
  agentOutput = spawned.output;
  exited = exitOf(proc);
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  if (proc?.pid !== undefined && proc.exitCode === null) {
    process.kill(-proc.pid, "SIGKILL");
    await exited;
  }
  if (dir) await rm(dir, { recursive: true, force: true });
  if (!resourceConfigExisted) await rm(RESOURCE_CONFIG, { force: true });
});

describe(`hyperpod-elastic-agent ${HYPERPOD_AGENT_VERSION} driven by the operator`, () => {
  it("exits at start without NNODES, which the pod environment supplies", async () => {
    expect(podEnv().NNODES).toBe("1");
    const { NNODES: _dropped, ...withoutNnodes } = podEnv();
    const { child, output } = spawnAgent({ ...withoutNnodes, TMPDIR: dir }, await findFreePort());
    const code = await exitOf(child);
    expect(code).not.toBe(0);
    expect(output()).toMatch(/KeyError: 'NNODES'/);
  }, 120_000);

  it("reports READY with its version, a spare until ranked, parsed by the operator's schema", async () => {
    const ready = await waitForStatus("READY", inState("ready"), 120_000);
    expect(ready.agent_version).toBe(HYPERPOD_AGENT_VERSION);
    expect(ready.restartMode).toBe("process_level_restart");
    expect(ready.spare).toBe("True");
    expect(ready.assigned_rank).toBeUndefined();
    expect(Object.keys(ready.transitions ?? {})).toEqual(expect.arrayContaining(["INIT", "READY"]));
  }, 130_000);

  it("/start → RUNNING; the worker gets the rendezvous and restart count 0; rankIps land in the IP table", async () => {
    const { running, ipVersion } = await startAt(0);
    // The PLR agent never updates its spare flag: "True" even after /start with spare: false (unlike ours).
    expect(running).toMatchObject({ assigned_rank: "0", spare: "True", reason: "Running" });
    expect(running.ipversion).toBe(ipVersion);
    expect(workerEnv(0)).toMatchObject({
      RANK: "0",
      WORLD_SIZE: "1",
      MASTER_ADDR: "127.0.0.1",
      MASTER_PORT: masterPort,
      JOB_RESTART_COUNT: "0",
      TORCHELASTIC_RESTART_COUNT: "0",
      NNODES: "1",
    });
    const table = JSON.parse(readFileSync(RESOURCE_CONFIG, "utf8")) as Record<string, unknown>;
    expect(table).toMatchObject({ ips: ["127.0.0.1"], current_pod_ip: "127.0.0.1" });
  });

  it("a worker crash → FAULTED WorkerCrash; /stop then /start with faultCount + 1 restarts it in place", async () => {
    const crashedAt = Date.now();
    await writeFile(path.join(ctl, "crash"), "");
    const faulted = await waitForStatus("FAULTED", inState("faulted"));
    expect(faulted.reason).toBe("WorkerCrash");
    const fault = steps.detect(faulted, Date.now());
    expect(fault).toMatchObject({
      kind: "WorkerCrash",
      reason: "WorkerCrash",
      pods: [steps.pod.name],
      ranks: [0],
    });
    // The fault time is the agent's transitions.FAULTED (microsecond ISO), not the time we looked.
    expect(fault?.at).toBeGreaterThanOrEqual(crashedAt - 1000);
    expect(fault?.at).toBe(Date.parse(faulted.transitions?.FAULTED ?? ""));
    // 1.1.3 reports the raw wait status of an exit: code 3 reads "exited with code -768 … Signal 768".
    expect(faulted.message).toMatch(/A training worker process has crashed:\s+Local Rank 0 exited with code/);
    const pid = proc.pid;
    await stopToReady({ restart_mode: "process_level_restart" });
    await startAt(1);
    expect(workerEnv(1)).toMatchObject({ JOB_RESTART_COUNT: "1", TORCHELASTIC_RESTART_COUNT: "1" });
    expect(proc.pid).toBe(pid);
    expect(proc.exitCode).toBeNull();
  });

  it("a log rule that stops matching → FAULTED LogHang_<rule>", async () => {
    await writeFile(path.join(ctl, "quiet"), "");
    const faulted = await waitForStatus("LogHang", inState("faulted"), 30_000);
    expect(faulted.reason).toBe(`LogHang_${RULE_NAME}`);
    expect(steps.detect(faulted, Date.now())).toMatchObject({ kind: "LogHang", rule: RULE_NAME });
    expect(faulted.message).toMatch(/hanging/);
    await rm(path.join(ctl, "quiet"));
    await stopToReady({});
    await startAt(2);
  });

  it("a graceful /stop (is_graceful) sends the workers SIGUSR1, then the agent is READY", async () => {
    await stopToReady({ is_graceful: true, timeout: 10 });
    expect(existsSync(path.join(ctl, "sigusr1-2"))).toBe(true);
  });

  it("/shutdown ends the agent process", async () => {
    const result = await client.shutdown(url);
    expect(result.ok).toBe(true);
    const code = await Promise.race([
      exited,
      new Promise<string>((resolve) => setTimeout(() => resolve("still running"), 60_000)),
    ]);
    expect(code).not.toBe("still running");
  }, 70_000);
});
