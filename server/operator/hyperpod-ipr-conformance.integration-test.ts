import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localPodEnv } from "@/server/cluster/local/agent-command";
import { hostEnvironment } from "@/server/cluster/local/host-env";
import type { ClusterJob, ClusterPod } from "@/server/cluster/types";
import { parseJobYaml } from "@/server/domain/job-spec/parse-job";
import { findFreePort } from "@/server/http/free-port";
import { type AgentStatus, createAgentClient } from "@/server/operator/agent-client";
import { ensureHyperPodAgent } from "@/test/hyperpod-agent";
import type { JobContext } from "./reconcilers/deps";
import { isInProcessJob, pauseAgents, startInProcess } from "./reconcilers/inprocess";
import { readState } from "./reconcilers/job-state";
import { expectedPods } from "./reconcilers/observe";

/**
 * AWS's unmodified hyperpodrun with `--inprocess-restart`, driven by the operator's in-process recovery
 * (reconcilers/inprocess.ts: isInProcessJob, pauseAgents, startInProcess): the agent says
 * restartMode in_process_restart; it is READY once its worker waits at the barrier; /start releases it
 * (job_start with the rank's variables); /stop without a restart mode pauses the worker in place (same
 * process) and /start hands the agents' worker_data to it; a worker that dies is restarted by that /stop.
 * The worker uses HyperPod's Python IPC client. As the other conformance test, it needs a writable
 * /opt/ml/input/config (hyperpodrun writes its IP table there).
 */
const JOB_YAML = `apiVersion: sagemaker.amazonaws.com/v1
kind: HyperPodPyTorchJob
metadata:
  name: ipr-conformance
spec:
  nprocPerNode: "1"
  replicaSpecs:
    - name: pods
      replicas: 1
      template:
        spec:
          containers:
            - name: trainer
              command: [hyperpodrun, --nnodes=1, --nproc-per-node=1, --inprocess-restart, train.py]
`;

/** An in-process worker on HyperPod's client: writes what each job_start carried, announces job_data. */
const IPR_WORKER_PY = `
import json, os, sys, threading, time
from hyperpod_elastic_agent.ipc import InProcessRestartSocketClient

ctl = sys.argv[1]
def put(name, value):
    tmp = os.path.join(ctl, name + ".tmp")
    with open(tmp, "w") as f:
        json.dump(value, f)
    os.replace(tmp, os.path.join(ctl, name))

client = InProcessRestartSocketClient()
faulted = threading.Event()
def watch():
    while True:
        client.hyperpod_wait_fault()
        faulted.set()
threading.Thread(target=watch, daemon=True).start()
run = 0
while True:
    _, start = client.hyperpod_barrier()
    client.hyperpod_past_rcb_barrier()
    faulted.clear()
    put("start-%d-%d.json" % (os.getpid(), run), start)
    client.hyperpod_send_data(rank=int(start["worker_envs"]["RANK"]), data=json.dumps({"pid": os.getpid(), "run": run}))
    while not faulted.is_set():
        if os.path.exists(os.path.join(ctl, "crash")):
            os.remove(os.path.join(ctl, "crash"))
            os._exit(3)
        print("step", flush=True)
        time.sleep(0.2)
    run += 1
`;

const RESOURCE_CONFIG_DIR = "/opt/ml/input/config";
const RESOURCE_CONFIG = path.join(RESOURCE_CONFIG_DIR, "pod_resourceconfig.json");
const client = createAgentClient({ timeoutMs: 5000 });
let resourceConfigExisted = false;
let dir = "";
let ctl = "";
let url = "";
let proc: ChildProcess | null = null;
let output = "";

function clusterJob(): ClusterJob {
  const parsed = parseJobYaml(JOB_YAML);
  if (!parsed.ok) throw new Error("the job fixture does not parse");
  const ref = { namespace: "default", name: "ipr-conformance" };
  return {
    ref,
    uid: "u",
    generation: 1,
    createdAt: new Date(),
    object: parsed.job,
    status: {},
    deleting: false,
  };
}

/** A reconcile's context for this one pod, as the agent answers now. */
async function context(restartCount: number): Promise<JobContext> {
  const job = clusterJob();
  const [expected] = expectedPods(job);
  const status = await client.status(url);
  if (!expected || !status.ok) throw new Error(`no status: ${JSON.stringify(status)}`);
  const pod = { name: expected.name, agentUrl: url, ip: "127.0.0.1", phase: "Running" } as ClusterPod;
  const now = Date.now();
  return {
    deps: { agents: client, backend: { rendezvous: async () => ({ addr: "127.0.0.1", port: "29512" }) } },
    job,
    obs: {
      now,
      job,
      pods: [{ expected, pod, agent: { kind: "status", status: status.value } }],
      strays: [],
      nodes: [],
    },
    status: { restartCount },
    state: readState({}, now),
    saved: {},
    now,
    ranksPerNode: 1,
  } as unknown as JobContext;
}

async function waitFor<T>(what: string, probe: () => Promise<T | null>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe().catch(() => null);
    if (value !== null) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}\nagent output:\n${output.slice(-3000)}`);
}

const inState = (state: AgentStatus["status"]) => async () => {
  const status = await client.status(url);
  return status.ok && status.value.status === state ? status.value : null;
};

type Start = { worker_envs: Record<string, string>; aggregate_worker_data: Record<string, unknown> };
const starts = () => readdirSync(ctl).filter((name) => /^start-\d+-\d+\.json$/.test(name));
const readStart = (name: string) => JSON.parse(readFileSync(path.join(ctl, name), "utf8")) as Start;

beforeAll(async () => {
  mkdirSync(RESOURCE_CONFIG_DIR, { recursive: true });
  accessSync(RESOURCE_CONFIG_DIR, constants.W_OK);
  resourceConfigExisted = existsSync(RESOURCE_CONFIG);
  const agent = await ensureHyperPodAgent();
  dir = await mkdtemp(path.join(tmpdir(), "rebound-hyperpodrun-ipr-"));
  ctl = path.join(dir, "ctl");
  await mkdir(ctl);
  await writeFile(path.join(dir, "train.py"), IPR_WORKER_PY);
  const port = await findFreePort();
  url = `http://127.0.0.1:${port}`;
  const { NNODES: _host, ...host } = hostEnvironment();
  const env = { ...localPodEnv({ host, job: clusterJob().object, containers: [], extra: {} }), TMPDIR: dir };
  proc = spawn(
    agent.hyperpodrun,
    [
      "--nnodes=1",
      "--nproc-per-node=1",
      "--inprocess-restart",
      "--server-host=127.0.0.1",
      `--server-port=${port}`,
      `--log_dir=${path.join(dir, "logs")}`,
      path.join(dir, "train.py"),
      ctl,
    ],
    { env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  proc.stdout?.on("data", keep);
  proc.stderr?.on("data", keep);
}, 20 * 60_000);

afterAll(async () => {
  if (proc?.pid !== undefined && proc.exitCode === null) process.kill(-proc.pid, "SIGKILL");
  if (dir) await rm(dir, { recursive: true, force: true });
  if (!resourceConfigExisted) await rm(RESOURCE_CONFIG, { force: true });
});

describe("hyperpodrun --inprocess-restart driven by the operator's in-process recovery", () => {
  it("is READY with its worker at the barrier and says in_process_restart", async () => {
    const ready = await waitFor("READY", inState("ready"));
    expect(ready.restartMode).toBe("in_process_restart");
    expect(isInProcessJob(await context(0))).toBe(true);
  }, 130_000);

  it("/start releases the barrier with the rank's variables; the worker's job_data shows as worker_data", async () => {
    expect(await startInProcess(await context(0))).toBe(true);
    await waitFor("RUNNING", inState("running"));
    const [first] = await waitFor("job_start", async () => (starts().length === 1 ? starts() : null));
    expect(readStart(first ?? "").worker_envs).toMatchObject({
      RANK: "0",
      WORLD_SIZE: "1",
      JOB_RESTART_COUNT: "0",
    });
    const status = await waitFor("worker_data", async () => {
      const answer = await client.status(url);
      return answer.ok && Array.isArray(answer.value.worker_data) ? answer.value : null;
    });
    expect(status.worker_data).toMatchObject([{ rank: 0, local_rank: 0, failed: false }]);
  }, 60_000);

  it("/stop without a restart mode pauses the worker in place; /start gives it the worker_data", async () => {
    const [first] = starts();
    expect(await pauseAgents(await context(0))).toBe(false);
    const paused = await waitFor("READY after the pause", inState("ready"));
    expect(paused.priority).toBe("True");
    expect(await pauseAgents(await context(1))).toBe(true);
    await startInProcess(await context(1));
    await waitFor("RUNNING", inState("running"));
    const again = await waitFor("second job_start", async () => (starts().length === 2 ? starts() : null));
    const pid = (name: string | undefined) => name?.split("-")[1];
    const second = again.find((name) => name !== first);
    expect(pid(second)).toBe(pid(first));
    const start = readStart(second ?? "");
    expect(start.worker_envs.JOB_RESTART_COUNT).toBe("1");
    expect(start.aggregate_worker_data).toMatchObject({
      rank_ips: [{ ip: "127.0.0.1", rank: 0 }],
      aggregate_worker_data: [{ rank: 0, group_rank: 0, local_rank: 0 }],
    });
  }, 60_000);

  it("a worker that dies is FAULTED; the same /stop restarts its process", async () => {
    const before = new Set(starts().map((name) => name.split("-")[1]));
    await writeFile(path.join(ctl, "crash"), "");
    const faulted = await waitFor("FAULTED", inState("faulted"), 30_000);
    expect(faulted.reason).toBe("WorkerCrash");
    await pauseAgents(await context(1));
    await waitFor("READY with a new worker", inState("ready"));
    await startInProcess(await context(2));
    const fresh = await waitFor("a new worker's job_start", async () => {
      const found = starts().find((name) => !before.has(name.split("-")[1]));
      return found ?? null;
    });
    expect(readStart(fresh).worker_envs.JOB_RESTART_COUNT).toBe("2");
  }, 180_000);
});
