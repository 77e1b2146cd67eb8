import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAlive } from "@/server/cluster/local/process-tree";
import type { JobRef } from "@/server/cluster/types";
import { listRestartEvents } from "@/server/store/restart-events/queries";
import { createSeededTestDatabase } from "@/test/database";
import { injectFault } from "./api/faults";
import type { LiveJob } from "./live-state";
import { type LocalOperator, startLocalOperator } from "./testing/local-operator";

/**
 * Ranks counted from what runs (issue 17 item 4), on a real local operator: the demo trainer under our
 * agent, 2 pods a job, with `nprocPerNode` "1", "auto", "2" and absent beside `--nproc-per-node 2` in
 * the command (a command without the flag runs `nprocPerNode`, which the pods get as PET_NPROC_PER_NODE;
 * absent is "auto", see server/operator/nproc-per-node.integration-test.ts). Each job's live state counts as many ranks in total as rank processes run, all running (no
 * "4 healthy / 2 total"); a crashed rank's restart record names that rank alone; a node fault names the
 * global ranks of the pod it killed.
 */
const NAMESPACE = "hyperpod-ns-llm-research";
let database: { url: string; drop: () => Promise<void> };
let operator: LocalOperator;

beforeAll(async () => {
  database = await createSeededTestDatabase("it_rank_count");
  operator = await startLocalOperator({
    databaseUrl: database.url,
    nodes: 3,
    gpusPerNode: 2,
    config: { stopTimeoutSeconds: 5 },
  });
}, 120_000);

afterAll(async () => {
  await operator?.stop();
  await database?.drop();
}, 60_000);

/** A 2-pod job of the demo trainer under our agent; no log rules, so only the faults injected here happen. */
function jobYaml(opts: { name: string; nprocPerNode?: string; agentFlags: string[]; gpusPerPod: number }) {
  const nproc = opts.nprocPerNode === undefined ? "" : `  nprocPerNode: "${opts.nprocPerNode}"\n`;
  const command = [
    "npx",
    "rebound-agent",
    ...opts.agentFlags,
    "--server-port",
    "8080",
    "--shutdown-timeout",
    "5",
  ];
  const gpus =
    opts.gpusPerPod > 0
      ? `\n              resources:\n                limits:\n                  nvidia.com/gpu: ${opts.gpusPerPod}`
      : "";
  return `apiVersion: sagemaker.amazonaws.com/v1
kind: HyperPodPyTorchJob
metadata:
  name: ${opts.name}
  namespace: ${NAMESPACE}
spec:
${nproc}  replicaSpecs:
    - name: workers
      replicas: 2
      template:
        spec:
          containers:
            - name: trainer
              image: rebound/demo:latest
              command: ${JSON.stringify(command)}
              args: ["examples/trainer/dist/demo-trainer.mjs", "--steps", "0", "--step-ms", "200"]${gpus}
  runPolicy:
    jobMaxRetryCount: 100
    restartPolicy:
      numRestartBeforeFullJobRestart: 10
      evalPeriodSeconds: 3600
      maxFullJobRestarts: 5
`;
}

/** Every rank process the agents report, with its pid (a rank listed without one is not running). */
const rankProcesses = (live: LiveJob) =>
  live.pods.flatMap((pod) => pod.ranks.filter((rank) => rank.pid !== null));

/** Running, no restart under way, and `ranks` rank processes reported by the agents, every one running. */
function settled(ref: JobRef, ranks: number) {
  return () => {
    const live = operator.live(ref);
    if (live?.phase !== "Running" || live.recovery !== null) return null;
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

async function recordNumber(ref: JobRef, count: number) {
  return operator.waitFor(
    `restart record #${count} of ${ref.name} complete`,
    async () => {
      const events = await listRestartEvents(operator.db, { namespace: ref.namespace, jobName: ref.name });
      const event = events[count - 1];
      return event && event.outcome !== "pending" ? { event, all: events } : null;
    },
    90_000,
  );
}

describe("ranks counted from what runs", () => {
  const cases = [
    {
      what: 'nprocPerNode "1", no flag: 1 rank a pod, 1 GPU each',
      name: "it-ranks-one",
      nprocPerNode: "1",
      agentFlags: [],
      gpusPerPod: 1,
      ranks: 2,
    },
    {
      what: 'nprocPerNode "auto" and --nproc-per-node auto: a rank per GPU, 2 GPUs each',
      name: "it-ranks-auto",
      nprocPerNode: "auto",
      agentFlags: ["--nproc-per-node", "auto"],
      gpusPerPod: 2,
      ranks: 4,
    },
    {
      what: 'nprocPerNode "2" with a command that names no count: 2 a pod (PET_NPROC_PER_NODE)',
      name: "it-ranks-two",
      nprocPerNode: "2",
      agentFlags: [],
      gpusPerPod: 0,
      ranks: 4,
    },
    {
      what: "nprocPerNode absent, --nproc-per-node 2 in the command: 2 ranks a pod, no GPUs",
      name: "it-ranks-flag",
      nprocPerNode: undefined,
      agentFlags: ["--nproc-per-node", "2"],
      gpusPerPod: 0,
      ranks: 4,
    },
  ];

  for (const job of cases) {
    it(`${job.what}: ${job.ranks} total, ${job.ranks} running`, async () => {
      const ref = await operator.submit(jobYaml(job));
      const live = await operator.waitFor(`${job.ranks} running ranks`, settled(ref, job.ranks), 90_000);
      expect(rankProcesses(live)).toHaveLength(job.ranks);
      expect(live.ranksTotal).toBe(job.ranks);
      expect(live.ranksRunning).toBe(job.ranks);
      // Global ranks 0..n-1, each once, pod by pod.
      const ranks = live.pods.flatMap((pod) => pod.ranks.map((rank) => rank.rank)).sort((a, b) => a - b);
      expect(ranks).toEqual(Array.from({ length: job.ranks }, (_, rank) => rank));
      await deleteJob(ref);
    }, 180_000);
  }
});

describe("restart records name the ranks that failed", () => {
  const ref = { namespace: NAMESPACE, name: "it-ranks-faults" };

  it("starts 2 pods × 2 ranks from the command's flag", async () => {
    await operator.submit(jobYaml({ name: ref.name, agentFlags: ["--nproc-per-node", "2"], gpusPerPod: 0 }));
    const live = await operator.waitFor("4 running ranks", settled(ref, 4), 90_000);
    expect(live.ranksTotal).toBe(4);
  }, 120_000);

  it("a crash of rank 1 is recorded as rank 1 alone, not its pod's ranks", async () => {
    injectFault({
      backend: operator.backend,
      live: operator.deps.live,
      ref,
      input: { kind: "crash", rank: 1 },
    });
    const { event } = await recordNumber(ref, 1);
    expect(event).toMatchObject({
      faultReason: "WorkerCrash",
      action: "PLR",
      pods: ["it-ranks-faults-workers-0"],
    });
    expect(event.ranks).toEqual([1]);
    const live = await operator.waitFor("4 ranks back", settled(ref, 4), 90_000);
    expect(live.ranksTotal).toBe(4);
  }, 150_000);

  it("a node fault that kills pod 1 is recorded with that pod's global ranks, 2 and 3", async () => {
    const pod = operator.live(ref)?.pods.find((candidate) => candidate.groupRank === 1);
    injectFault({
      backend: operator.backend,
      live: operator.deps.live,
      ref,
      input: { kind: "node", rank: 2 },
    });
    const { event, all } = await recordNumber(ref, 2);
    expect(all).toHaveLength(2);
    expect(event).toMatchObject({
      faultReason: "NodeFault",
      node: pod?.node,
      pods: ["it-ranks-faults-workers-1"],
    });
    expect(event.ranks).toEqual([2, 3]);
    const live = await operator.waitFor("4 ranks back", settled(ref, 4), 90_000);
    expect(live.ranksTotal).toBe(4);
    expect(live.ranksRunning).toBe(4);
    await deleteJob(ref);
  }, 150_000);
});
