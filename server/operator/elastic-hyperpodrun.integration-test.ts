import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobRef } from "@/server/cluster/types";
import { injectFault } from "@/server/operator/api/faults";
import { listRestartEvents } from "@/server/store/restart-events/queries";
import { listScalingEvents } from "@/server/store/scaling-events/queries";
import { createSeededTestDatabase } from "@/test/database";
import { ensureHyperPodAgent, type HyperPodAgent } from "@/test/hyperpod-agent";
import { type HyperPodWorkDir, hyperpodWorkDir } from "./testing/hyperpod-worker";
import { type LocalOperator, startLocalOperator } from "./testing/local-operator";

/**
 * Elastic scaling under AWS's unmodified `hyperpodrun` (test/hyperpod-agent.ts) on the local back end, 3
 * nodes × 1 GPU, one rank per pod. The agent reads the `NNODES` env once, when it starts (its rendezvous
 * backend's constructor), and every /start (and /update) replaces it with the request's `nnodes`; the
 * WORLD_SIZE it gives its workers is local_world_size × that. So a pod kept across a scaling needs no new
 * env: its agent learns the size at the /start that follows the scaling. Checked here on what each worker
 * was started with, after a scale-up 1 → 3, a fault-driven scale-down 3 → 2 (its restart ends recovered,
 * Running True) and the growth back to 3. The figures measured are printed.
 */
const INSTALL_TIMEOUT_MS = 20 * 60_000;
const A: JobRef = { namespace: "hyperpod-ns-llm-research", name: "it-elastic-hyperpodrun" };
const FAULTY_SECONDS = 3;
let database: { url: string; drop: () => Promise<void> };
let op: LocalOperator;
let agent: HyperPodAgent;
let work: HyperPodWorkDir;

/** Appends what each worker start saw to `starts-<pod>.jsonl`; steps until SIGUSR1 (a graceful stop). */
const WORKER_PY = `
import json, os, signal, sys, time

ctl = sys.argv[1]
KEYS = ["RANK", "WORLD_SIZE", "GROUP_RANK", "GROUP_WORLD_SIZE", "NNODES"]
signal.signal(signal.SIGUSR1, lambda signum, frame: sys.exit(0))
line = dict({key: os.environ.get(key) for key in KEYS}, at=time.time())
with open(os.path.join(ctl, "starts-%s.jsonl" % os.environ["REBOUND_POD_NAME"]), "a") as f:
    f.write(json.dumps(line) + "\\n")
step = 0
while True:
    print("step %d loss 0.5" % step, flush=True)
    step += 1
    time.sleep(0.2)
`;

function jobYaml(): string {
  // hyperpodrun asserts --nnodes is one number (not MIN:MAX) and uses it no further.
  const command = [agent.hyperpodrun, "--nnodes=1", "--nproc-per-node=1", "--server-port=8080"];
  return `apiVersion: sagemaker.amazonaws.com/v1
kind: HyperPodPyTorchJob
metadata:
  name: ${A.name}
  namespace: ${A.namespace}
spec:
  nprocPerNode: "1"
  elasticPolicy:
    minReplicas: 1
    maxReplicas: 3
    replicaIncrementStep: 1
    scalingTimeoutInSeconds: 2
    gracefulShutdownTimeoutInSeconds: 10
    faultyScaleDownTimeoutInSeconds: ${FAULTY_SECONDS}
  replicaSpecs:
    - name: workers
      replicas: 1
      template:
        spec:
          containers:
            - name: trainer
              image: rebound/demo:latest
              command: ${JSON.stringify(command)}
              args: ${JSON.stringify([work.script, work.ctl])}
              resources: { limits: { nvidia.com/gpu: 1 } }
  runPolicy:
    jobMaxRetryCount: 3
`;
}

type Start = { RANK: string; WORLD_SIZE: string; GROUP_WORLD_SIZE: string; NNODES: string; at: number };

async function startsOf(pod: string): Promise<Start[]> {
  const text = await readFile(path.join(work.ctl, `starts-${pod}.jsonl`), "utf8").catch(() => "");
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Start);
}

const podNames = (size: number) => Array.from({ length: size }, (_, i) => `${A.name}-workers-${i}`);

/** Every pod of the job at `size` runs a worker started at world size `size` since `after` (epoch ms). */
function workersAt(size: number, after: number) {
  return op.waitFor(
    `every worker started at world size ${size}`,
    async () => {
      const job = op.live(A);
      if (job?.phase !== "Running" || job.elastic?.actualReplicas !== size || job.pods.length !== size)
        return null;
      const latest = await Promise.all(podNames(size).map(async (pod) => (await startsOf(pod)).at(-1)));
      const fresh = latest.every(
        (start) => start && start.at * 1000 >= after && start.WORLD_SIZE === String(size),
      );
      return fresh ? (latest as Start[]) : null;
    },
    240_000,
  );
}

const runningCondition = async () =>
  (await op.backend.getJob(A))?.status.conditions?.find((condition) => condition.type === "Running");

beforeAll(async () => {
  agent = await ensureHyperPodAgent();
  work = await hyperpodWorkDir("rebound-elastic-hyperpodrun-", WORKER_PY);
  database = await createSeededTestDatabase("it_elastic_hyperpodrun");
  op = await startLocalOperator({
    databaseUrl: database.url,
    nodes: 3,
    gpusPerNode: 1,
    governance: false,
    config: { stopTimeoutSeconds: 5 },
  });
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  await op?.stop();
  await database?.drop();
  if (work) await rm(work.dir, { recursive: true, force: true });
}, 60_000);

describe("an elastic job under the unchanged hyperpodrun", () => {
  it("gives every agent the world size after each scaling; a fault's scale-down ends recovered", async () => {
    const submitted = Date.now();
    await op.submit(jobYaml());
    const first = await workersAt(1, submitted);
    expect(first[0]).toMatchObject({ RANK: "0", WORLD_SIZE: "1", GROUP_WORLD_SIZE: "1", NNODES: "1" });

    // Scale-up 1 → 3: the pod made at size 1 keeps its agent (and NNODES=1); /start tells it 3.
    const grown = await workersAt(3, submitted);
    expect(grown.map((start) => start.RANK).sort()).toEqual(["0", "1", "2"]);
    expect(grown.every((start) => start.GROUP_WORLD_SIZE === "3")).toBe(true);
    expect(grown.map((start) => start.NNODES)).toEqual(["1", "3", "3"]);
    const jobUid = (await op.backend.getJob(A))?.uid ?? "";
    const scalings = () => listScalingEvents(op.db, { ...A, jobName: A.name, jobUid });
    const up = (await scalings())[0];
    expect(up).toMatchObject({ fromReplicas: 1, toReplicas: 3, reason: "ScaleUp", outcome: "Scaled" });
    const upMs = (up?.finishedAt?.getTime() ?? 0) - (up?.startedAt.getTime() ?? 0);
    console.log(`scale-up 1 → 3: ${upMs} ms; workers: ${JSON.stringify(grown)}`);

    // The node of rank 2 fails for good: its replacement has nowhere to go; after the faulty timeout the
    // job scales down to the 2 pods that run, and that ends the restart as recovered.
    const failed = injectFault({
      backend: op.backend,
      live: op.deps.live,
      ref: A,
      input: { kind: "node", rank: 2 },
    });
    const faultAt = Date.now();
    const shrunk = await workersAt(2, faultAt);
    expect(shrunk.map((start) => start.RANK).sort()).toEqual(["0", "1"]);
    expect(shrunk.every((start) => start.GROUP_WORLD_SIZE === "2")).toBe(true);
    const rows = await listRestartEvents(op.db, { namespace: A.namespace, jobName: A.name });
    expect(rows).toHaveLength(1);
    const row = rows[0];
    expect(row).toMatchObject({ faultReason: "NodeFault", outcome: "recovered" });
    expect(row?.recoveredAt).toBeInstanceOf(Date);
    expect(row?.message).toContain("The job scaled down to 2 replicas");
    expect(await runningCondition()).toMatchObject({ status: "True", reason: "Running" });
    const down = (await scalings())[1];
    expect(down).toMatchObject({
      fromReplicas: 3,
      toReplicas: 2,
      reason: "FaultyScaleDown",
      outcome: "Scaled",
    });
    const recoveredMs = (row?.recoveredAt?.getTime() ?? 0) - (row?.faultAt.getTime() ?? 0);
    expect(recoveredMs).toBeGreaterThanOrEqual(FAULTY_SECONDS * 1000);
    console.log(
      `fault → recovered at 2 replicas: ${recoveredMs} ms (faultyScaleDownTimeoutInSeconds ${FAULTY_SECONDS}); ` +
        `workers: ${JSON.stringify(shrunk)}`,
    );

    // The node comes back: the job grows to 3 again, still Running, the restart still recovered.
    op.backend.nodes.setHealth(failed.node ?? "", "Schedulable");
    const back = Date.now();
    const again = await workersAt(3, back);
    expect(again.map((start) => start.RANK).sort()).toEqual(["0", "1", "2"]);
    expect(again.every((start) => start.GROUP_WORLD_SIZE === "3")).toBe(true);
    expect(await runningCondition()).toMatchObject({ status: "True", reason: "Running" });
    const final = await listRestartEvents(op.db, { namespace: A.namespace, jobName: A.name });
    expect(final.map((r) => r.outcome)).toEqual(["recovered"]);
    console.log(
      `back to 3: ${Date.now() - back} ms after the node returned; workers: ${JSON.stringify(again)}`,
    );
  }, 900_000);
});
