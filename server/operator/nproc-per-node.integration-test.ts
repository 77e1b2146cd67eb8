import { readdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAlive } from "@/server/cluster/local/process-tree";
import type { JobRef } from "@/server/cluster/types";
import { createSeededTestDatabase } from "@/test/database";
import { ensureHyperPodAgent, type HyperPodAgent } from "@/test/hyperpod-agent";
import type { LiveJob } from "./live-state";
import { type HyperPodWorkDir, hyperpodWorkDir } from "./testing/hyperpod-worker";
import { type LocalOperator, startLocalOperator } from "./testing/local-operator";

/**
 * `spec.nprocPerNode` with a command that names no `--nproc-per-node` (issue 36 item 8), on a real local
 * operator: the operator gives every pod PET_NPROC_PER_NODE (server/cluster/pod-env.ts), which torchrun's
 * parser, and so the unchanged hyperpodrun, takes as the flag's default, and our agent reads the same way
 * (server/agent/cli-env.ts). "2" runs 2 ranks a pod under our agent and under hyperpodrun; absent is the
 * CRD's "auto", a rank per visible GPU. The first run installs hyperpodrun (test/hyperpod-agent.ts).
 */
const INSTALL_TIMEOUT_MS = 20 * 60_000;
const NAMESPACE = "hyperpod-ns-llm-research";
let database: { url: string; drop: () => Promise<void> };
let operator: LocalOperator;
let agent: HyperPodAgent;
let work: HyperPodWorkDir;

/** A worker that writes its torch variables to `rank-<RANK>.json` in its control folder, then trains on. */
const RANK_WORKER_PY = `
import json, os, sys, time

ctl = sys.argv[1]
KEYS = ["RANK", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "WORLD_SIZE", "PET_NPROC_PER_NODE"]
tmp = os.path.join(ctl, "rank-%s.tmp" % os.environ["RANK"])
with open(tmp, "w") as f:
    f.write(json.dumps({key: os.environ.get(key) for key in KEYS}))
os.replace(tmp, os.path.join(ctl, "rank-%s.json" % os.environ["RANK"]))
step = 0
while True:
    print("step %d loss 0.5" % step, flush=True)
    step += 1
    time.sleep(0.2)
`;

beforeAll(async () => {
  agent = await ensureHyperPodAgent();
  work = await hyperpodWorkDir("rebound-nproc-", RANK_WORKER_PY);
  database = await createSeededTestDatabase("it_nproc_per_node");
  operator = await startLocalOperator({
    databaseUrl: database.url,
    nodes: 2,
    // The local back end places a pod that requests no GPU as needing one per rank
    // (server/operator/reconcilers/steps.ts).
    gpusPerNode: 4,
    config: { stopTimeoutSeconds: 5 },
  });
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  await operator?.stop();
  await database?.drop();
  if (work) await rm(work.dir, { recursive: true, force: true });
}, 60_000);

/** A job whose command gives no `--nproc-per-node`: `spec` lines as given, the container's `env` too. */
function jobYaml(opts: {
  name: string;
  spec: string;
  replicas: number;
  command: string[];
  args: string[];
  env?: string;
}) {
  return `apiVersion: sagemaker.amazonaws.com/v1
kind: HyperPodPyTorchJob
metadata:
  name: ${opts.name}
  namespace: ${NAMESPACE}
spec:
${opts.spec}  replicaSpecs:
    - name: workers
      replicas: ${opts.replicas}
      template:
        spec:
          containers:
            - name: trainer
              image: rebound/demo:latest
              command: ${JSON.stringify(opts.command)}
              args: ${JSON.stringify(opts.args)}${opts.env ? `\n              env: ${opts.env}` : ""}
  runPolicy:
    jobMaxRetryCount: 3
`;
}

const REBOUND_AGENT = ["npx", "rebound-agent", "--server-port", "8080", "--shutdown-timeout", "5"];
const DEMO_TRAINER = ["examples/trainer/dist/demo-trainer.mjs", "--steps", "0", "--step-ms", "200"];

/** Running, every pod's agent reporting ranks, `ranks` of them running in all. */
function settled(ref: JobRef, ranks: number) {
  return () => {
    const live = operator.live(ref);
    if (live?.phase !== "Running") return null;
    const running = live.pods.flatMap((pod) => pod.ranks.filter((rank) => rank.state === "running"));
    return running.length === ranks && live.pods.every((pod) => pod.ranks.length > 0) ? live : null;
  };
}

async function deleteJob(ref: JobRef) {
  const pids = operator.backend.pods
    .list(ref)
    .map((pod) => operator.backend.pods.pidOf(pod.namespace, pod.name));
  await operator.backend.requestDeletion(ref);
  await operator.waitFor("job gone", async () => (await operator.backend.getJob(ref)) === null, 60_000);
  await operator.waitFor("agents gone", () => pids.every((pid) => pid === null || !isAlive(pid)), 20_000);
}

/** What the operator saw and the job's events: why a job did not get where a test waited for it. */
async function diagnosis(ref: JobRef): Promise<string> {
  const live = operator.live(ref);
  const events = await operator.backend.listEvents(ref);
  const pods = live?.pods.map((pod) => ({ name: pod.name, agent: pod.agentState, ranks: pod.ranks.length }));
  return [live?.phase, live?.status, JSON.stringify(pods), JSON.stringify(events)].join("\n");
}

/** Waits as operator.waitFor does, and on a time-out says what the job was doing. */
function waitForJob<T>(ref: JobRef, what: string, probe: () => T | null | Promise<T | null>, ms: number) {
  return operator.waitFor(what, probe, ms).catch(async (error: Error) => {
    throw new Error(`${error.message}\n${await diagnosis(ref)}`);
  });
}

/** Submits a job, runs `check` on it, and deletes it whatever `check` found (the next test needs the nodes). */
async function withJob(ref: JobRef, yaml: string, check: () => Promise<void>) {
  await operator.submit(yaml);
  try {
    await check();
  } finally {
    await deleteJob(ref);
  }
}

/** Each pod's ranks as [group rank, [global ranks]], by group rank. */
const ranksByPod = (live: LiveJob) =>
  live.pods
    .map((pod) => [pod.groupRank, pod.ranks.map((rank) => rank.rank).sort((a, b) => a - b)] as const)
    .sort(([a], [b]) => a - b);

describe("nprocPerNode without --nproc-per-node in the command", () => {
  it('our agent: nprocPerNode "2" runs 2 ranks a pod, 4 in all', async () => {
    const ref = { namespace: NAMESPACE, name: "it-nproc-agent" };
    const spec = '  nprocPerNode: "2"\n';
    const yaml = jobYaml({ name: ref.name, spec, replicas: 2, command: REBOUND_AGENT, args: DEMO_TRAINER });
    await withJob(ref, yaml, async () => {
      const live = await waitForJob(ref, "4 running ranks", settled(ref, 4), 90_000);
      expect(ranksByPod(live)).toEqual([
        [0, [0, 1]],
        [1, [2, 3]],
      ]);
      expect(live.ranksTotal).toBe(4);
      expect(live.ranksRunning).toBe(4);
    });
  }, 180_000);

  it("our agent: nprocPerNode absent is the CRD's auto, a rank per visible GPU", async () => {
    const ref = { namespace: NAMESPACE, name: "it-nproc-auto" };
    // This machine may have no GPU: the container names three, as a device plugin would.
    const env = '[{ name: CUDA_VISIBLE_DEVICES, value: "0,1,2" }]';
    const yaml = jobYaml({
      name: ref.name,
      spec: "",
      replicas: 1,
      command: REBOUND_AGENT,
      args: DEMO_TRAINER,
      env,
    });
    await withJob(ref, yaml, async () => {
      const live = await waitForJob(ref, "3 running ranks", settled(ref, 3), 90_000);
      expect(ranksByPod(live)).toEqual([[0, [0, 1, 2]]]);
      expect(live.ranksTotal).toBe(3);
    });
  }, 180_000);

  it(
    'the unchanged hyperpodrun: nprocPerNode "2" runs 2 ranks in its pod',
    async () => {
      const ref = { namespace: NAMESPACE, name: "it-nproc-hyperpodrun" };
      const command = [agent.hyperpodrun, "--nnodes=1", "--server-port=8080"];
      const args = [work.script, work.ctl];
      const yaml = jobYaml({ name: ref.name, spec: '  nprocPerNode: "2"\n', replicas: 1, command, args });
      await withJob(ref, yaml, async () => {
        const files = await waitForJob(
          ref,
          "both ranks' files",
          async () => {
            const names = (await readdir(work.ctl)).filter((name) => name.endsWith(".json")).sort();
            return names.length >= 2 ? names : null;
          },
          180_000,
        );
        expect(files).toEqual(["rank-0.json", "rank-1.json"]);
        const seen = await Promise.all(
          files.map(async (name) => JSON.parse(await readFile(path.join(work.ctl, name), "utf8"))),
        );
        const worker = { LOCAL_WORLD_SIZE: "2", WORLD_SIZE: "2", PET_NPROC_PER_NODE: "2" };
        expect(seen).toEqual([
          { RANK: "0", LOCAL_RANK: "0", ...worker },
          { RANK: "1", LOCAL_RANK: "1", ...worker },
        ]);
        // hyperpodrun reports no per-rank list: the operator counts the spec's 2 for its pod.
        const live = await waitForJob(
          ref,
          "Running",
          () => {
            const job = operator.live(ref);
            return job?.phase === "Running" ? job : null;
          },
          60_000,
        );
        expect(live.ranksTotal).toBe(2);
      });
    },
    INSTALL_TIMEOUT_MS,
  );
});
