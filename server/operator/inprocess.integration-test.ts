import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobRef } from "@/server/cluster/types";
import { listRestartEvents } from "@/server/store/restart-events/queries";
import { createSeededTestDatabase } from "@/test/database";
import { injectFault } from "./api/faults";
import { type LocalOperator, startLocalOperator } from "./testing/local-operator";

/**
 * In-process recovery on the local back end, end to end: a 2 × 2 job whose agents run
 * `--inprocess-restart` and whose demo trainer has `--peer-recovery`. One rank crashes: its node's
 * processes restart (HyperPod's agent restarts a node whose worker died), the other node's ranks keep
 * their processes (paused at the barrier, not killed), and the new rank takes model and optimizer state
 * from a healthy peer, so the job goes on from the step it had reached.
 */
let database: { url: string; drop: () => Promise<void> };
let operator: LocalOperator;

beforeAll(async () => {
  database = await createSeededTestDatabase("it_inprocess");
  operator = await startLocalOperator({
    databaseUrl: database.url,
    nodes: 2,
    gpusPerNode: 2,
    config: { stopTimeoutSeconds: 5 },
  });
}, 120_000);

afterAll(async () => {
  await operator?.stop();
  await database?.drop();
  expect(operator?.alivePids()).toEqual([]);
}, 60_000);

function inProcessJobYaml(name: string): string {
  return `apiVersion: sagemaker.amazonaws.com/v1
kind: HyperPodPyTorchJob
metadata:
  name: ${name}
  namespace: hyperpod-ns-llm-research
spec:
  nprocPerNode: "2"
  replicaSpecs:
    - name: workers
      replicas: 2
      template:
        spec:
          containers:
            - name: trainer
              image: rebound/demo:latest
              command: ["npx", "rebound-agent", "--nproc-per-node", "2", "--server-port", "8080", "--shutdown-timeout", "5", "--tee", "3", "--inprocess-restart", "--inprocess-timeout", "10"]
              args: ["examples/trainer/dist/demo-trainer.mjs", "--step-ms", "100", "--peer-recovery"]
              env:
                - name: INPROCESS_RESTART
                  value: "1"
              resources:
                limits:
                  nvidia.com/gpu: 2
  runPolicy:
    jobMaxRetryCount: 100
    restartPolicy:
      numRestartBeforeFullJobRestart: 10
      evalPeriodSeconds: 3600
      maxFullJobRestarts: 5
    logMonitoringConfiguration:
      - name: JobHang
        logPattern: ".*step=(\\\\d+).*"
        expectedRecurringFrequencyInSeconds: 5
`;
}

type RankView = { rank: number; pid: number | null; step: number | null };

function ranks(ref: JobRef): RankView[] {
  return (operator.live(ref)?.pods ?? []).flatMap((pod) =>
    pod.ranks.map((rank) => ({ rank: rank.rank, pid: rank.pid, step: rank.step })),
  );
}

const steppingPast = (ref: JobRef, step: number) => () => {
  const live = operator.live(ref);
  const all = ranks(ref);
  const ok =
    live?.phase === "Running" &&
    live.recovery === null &&
    all.length === 4 &&
    all.every((rank) => (rank.step ?? -1) > step);
  return ok ? all : null;
};

async function podLog(ref: JobRef, pod: string): Promise<string> {
  return operator.backend.podLogs(ref, pod, 5000);
}

describe("in-process recovery with peer-state recovery (local back end)", () => {
  const ref = { namespace: "hyperpod-ns-llm-research", name: "it-inprocess" };

  it("runs an in-process job: agents report in_process_restart", async () => {
    await operator.submit(inProcessJobYaml(ref.name));
    await operator.waitFor("4 ranks stepping", steppingPast(ref, 5), 90_000);
    const pods = operator.live(ref)?.pods ?? [];
    expect(pods.map((pod) => pod.ranks.map((rank) => rank.rank))).toEqual([
      [0, 1],
      [2, 3],
    ]);
    for (const pod of await operator.backend.listPods(ref)) {
      const status = await operator.deps.agents.status(pod.agentUrl ?? "");
      expect(status.ok && status.value.restartMode).toBe("in_process_restart");
      // Each rank announced its peer-state port as job_data; the agent shows it as worker_data.
      expect(status.ok && status.value.worker_data).toHaveLength(2);
    }
  });

  it("recovers a crashed rank in place: the other node keeps its pids and the job keeps its step", async () => {
    const before = ranks(ref);
    const healthy = before.filter((rank) => rank.rank < 2);
    injectFault({
      backend: operator.backend,
      live: operator.deps.live,
      ref,
      input: { kind: "crash", rank: 3 },
    });
    const event = await operator.waitFor("restart recovered", async () => {
      const events = await listRestartEvents(operator.db, { namespace: ref.namespace, jobName: ref.name });
      const first = events[0];
      return first && first.outcome !== "pending" ? first : null;
    });
    expect(event).toMatchObject({ faultReason: "WorkerCrash", action: "PLR", outcome: "recovered" });
    const stepAtFault = Math.max(...healthy.map((rank) => rank.step ?? 0));
    const after = await operator.waitFor("ranks stepping again", steppingPast(ref, stepAtFault + 2), 60_000);

    // The healthy node's ranks were paused at the barrier, not restarted; the crashed node's were.
    const pidOf = (list: RankView[], rank: number) => list.find((entry) => entry.rank === rank)?.pid;
    for (const rank of [0, 1]) expect(pidOf(after, rank)).toBe(pidOf(before, rank));
    for (const rank of [2, 3]) expect(pidOf(after, rank)).not.toBe(pidOf(before, rank));

    // The pod's log lags the ranks' own output: wait for the peer line and the first step printed after it.
    const restarted = await operator.waitFor("the new rank's peer line and its first step", async () => {
      const log = await podLog(ref, "it-inprocess-workers-1");
      return /state from peer rank=\d step=\d+ weights=\S+ rank=3[\s\S]*\[default1\]:step=\d+ /.test(log)
        ? log
        : null;
    });
    const peer = /state from peer rank=(\d) step=(\d+) weights=(\S+) rank=3/.exec(restarted);
    const peerStep = Number(peer?.[2]);
    expect(Number(peer?.[1])).toBeLessThan(2);
    // No step lost: the peer's step is at least what the job had reached when the rank crashed, and the
    // new rank's first step is the next one.
    expect(peerStep).toBeGreaterThanOrEqual(stepAtFault);
    const afterPeer = restarted.slice(restarted.indexOf(peer?.[0] ?? ""));
    expect(/\[default1\]:step=(\d+) /.exec(afterPeer)?.[1]).toBe(String(peerStep + 1));

    const kept = await podLog(ref, "it-inprocess-workers-0");
    const keptLine = /in-process restart: kept state step=(\d+) weights=(\S+) rank=0 restart=1/.exec(kept);
    expect(keptLine).not.toBeNull();
    expect(kept).toMatch(new RegExp(`\\[default0\\]:step=${Number(keptLine?.[1]) + 1} `));
    expect(kept).not.toMatch(/resuming from checkpoint/);
  });

  it("recovers a hang the same way: the hung node restarts, the other keeps its pids", async () => {
    const before = await operator.waitFor("all stepping", steppingPast(ref, 0));
    const count = (await listRestartEvents(operator.db, { namespace: ref.namespace, jobName: ref.name }))
      .length;
    injectFault({
      backend: operator.backend,
      live: operator.deps.live,
      ref,
      input: { kind: "hang", rank: 0 },
    });
    const event = await operator.waitFor(
      "hang recovered",
      async () => {
        const events = await listRestartEvents(operator.db, { namespace: ref.namespace, jobName: ref.name });
        const last = events[count];
        return last && last.outcome !== "pending" ? last : null;
      },
      60_000,
    );
    expect(event).toMatchObject({ faultReason: "LogHang_JobHang", action: "PLR", outcome: "recovered" });
    const stepAtFault = Math.max(...before.filter((rank) => rank.rank >= 2).map((rank) => rank.step ?? 0));
    const after = await operator.waitFor("stepping again", steppingPast(ref, stepAtFault + 2), 60_000);
    const pidOf = (list: RankView[], rank: number) => list.find((entry) => entry.rank === rank)?.pid;
    for (const rank of [2, 3]) expect(pidOf(after, rank)).toBe(pidOf(before, rank));
    for (const rank of [0, 1]) expect(pidOf(after, rank)).not.toBe(pidOf(before, rank));
    const log = await operator.waitFor("rank 0's peer line", async () => {
      const text = await podLog(ref, "it-inprocess-workers-0");
      // The newest state among the peers asked (at or past the fault's step, below).
      return /state from peer rank=[123] step=\d+ weights=\S+ rank=0/.test(text) ? text : null;
    });
    const peerStep = Number(/state from peer rank=[123] step=(\d+) weights=\S+ rank=0/.exec(log)?.[1]);
    expect(peerStep).toBeGreaterThanOrEqual(stepAtFault);
  });
});
