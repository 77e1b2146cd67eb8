import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobRef } from "@/server/cluster/types";
import { createDb, type Db } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { injectFault } from "@/server/operator/api/faults";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { type LocalOperator, startLocalOperator } from "@/server/operator/testing/local-operator";
import { listRestartEvents } from "@/server/store/restart-events/queries";
import { listScalingEvents } from "@/server/store/scaling-events/queries";
import { createTestDatabase } from "@/test/database";

/**
 * Scale-down on faults, end to end on the local back end (issue 14): real PostgreSQL, the operator, real
 * agents and demo-trainer workers on 3 nodes × 2 GPUs, no spare node. An elastic job (1 to 3 pods) grows
 * to 3, then loses a node for good (it never reboots here): the restart's replacement pod has nowhere to go, so after
 * faultyScaleDownTimeoutInSeconds the job scales down, gracefully, to the 2 pods that still run, and trains on
 * from where it was: that is how the restart recovered (its row ends recovered, Running turns True). The node
 * comes back: the job grows to 3 again.
 */

const GRACEFUL_SECONDS = 20;
const FAULTY_SECONDS = 3;
const A: JobRef = { namespace: "hyperpod-ns-llm-research", name: "it-elastic-fault" };

let database: { url: string; drop: () => Promise<void> };
let db: Db;
let op: LocalOperator;

function elasticYaml(): string {
  const base = demoJobYaml({
    name: A.name,
    namespace: A.namespace,
    nodes: 3,
    ranks: 1,
    gpusPerPod: 2,
    gracefulSeconds: GRACEFUL_SECONDS,
  });
  const policy = [
    "  elasticPolicy:",
    "    minReplicas: 1",
    "    maxReplicas: 3",
    "    replicaIncrementStep: 1",
    "    scalingTimeoutInSeconds: 2",
    `    gracefulShutdownTimeoutInSeconds: ${GRACEFUL_SECONDS}`,
    `    faultyScaleDownTimeoutInSeconds: ${FAULTY_SECONDS}`,
    "",
  ].join("\n");
  const from = base.indexOf("  elasticPolicy:");
  const to = base.indexOf("  runPolicy:");
  return `${base.slice(0, from)}${policy}${base.slice(to)}`;
}

const live = () => op.live(A);

/** The job runs at `replicas` pods, every rank stepping past `beyond`. */
function runningAt(replicas: number, beyond: number) {
  return op.waitFor(
    `running at ${replicas} past step ${beyond}`,
    () => {
      const job = live();
      if (job?.phase !== "Running" || job.elastic?.actualReplicas !== replicas || job.recovery !== null)
        return null;
      const steps = job.pods.flatMap((pod) => pod.ranks.map((rank) => rank.step ?? -1));
      return steps.length === replicas && Math.min(...steps) > beyond ? job : null;
    },
    180_000,
  );
}

/** The lowest step any rank of the job had printed. */
const stepsOf = (job: ReturnType<typeof live>) =>
  Math.min(...(job?.pods ?? []).flatMap((pod) => pod.ranks.map((rank) => rank.step ?? 0)));

beforeAll(async () => {
  database = await createTestDatabase("elastic_fault");
  await migrate(database.url);
  db = createDb(database.url);
  op = await startLocalOperator({
    databaseUrl: database.url,
    nodes: 3,
    gpusPerNode: 2,
    governance: false,
    service: "elastic-fault-test",
  });
}, 120_000);

afterAll(async () => {
  await op?.stop();
  await db?.$disconnect();
  await database?.drop();
}, 60_000);

describe("an elastic job that loses a node for good", () => {
  it("scales down to the pods that run after faultyScaleDownTimeoutInSeconds, then grows back", async () => {
    await op.submit(elasticYaml());
    await runningAt(3, 3);
    const before = stepsOf(live());
    const failed = injectFault({
      backend: op.backend,
      live: op.deps.live,
      ref: A,
      input: { kind: "node", rank: 2 },
    });
    const failedAt = Date.now();

    const shrunk = await runningAt(2, before);
    const jobUid = shrunk.uid ?? "";
    // Not before the timeout: the restart waited for the replacement pod that had nowhere to go.
    const scaled = await listScalingEvents(db, { ...A, jobName: A.name, jobUid });
    // It started at `replicas` (3, AWS's initial count: not governed, no scale-up), then scaled down for the fault.
    expect(scaled.map((row) => [row.fromReplicas, row.toReplicas, row.reason, row.outcome])).toEqual([
      [3, 2, "FaultyScaleDown", "Scaled"],
    ]);
    // Not before the timeout: the restart waited for the replacement pod that had nowhere to go.
    const faultyAt = scaled[0]?.startedAt.getTime() ?? 0;
    expect(faultyAt - failedAt).toBeGreaterThanOrEqual(FAULTY_SECONDS * 1000 - 500);
    // The restart's row ends recovered once the job runs at 2, saying how; Running is True again.
    const restarts = await listRestartEvents(db, { namespace: A.namespace, jobName: A.name });
    expect(restarts).toHaveLength(1);
    expect(restarts[0]).toMatchObject({ faultReason: "NodeFault", outcome: "recovered" });
    expect(restarts[0]?.message).toContain(
      "The job scaled down to 2 replicas: failed replicas did not come back in time",
    );
    const recoveredMs = (restarts[0]?.recoveredAt?.getTime() ?? 0) - (restarts[0]?.faultAt.getTime() ?? 0);
    expect(recoveredMs).toBeGreaterThanOrEqual(FAULTY_SECONDS * 1000);
    const running = () =>
      op.backend.getJob(A).then((job) => job?.status.conditions?.find((c) => c.type === "Running"));
    expect(await running()).toMatchObject({ status: "True", reason: "Running" });
    console.log(`node fault → recovered at 2 replicas in ${recoveredMs} ms`);
    expect((await op.backend.getJob(A))?.status.elasticScalingStatus).toMatchObject({
      targetReplicas: { workers: 2 },
      isFaultyPodScaleDown: true,
    });
    // No pod is left on the failed node; training went on from where it was (runningAt: past `before`).
    expect(shrunk.pods.map((pod) => pod.node)).not.toContain(failed.node);

    // The node comes back: the job grows to 3 again.
    op.backend.nodes.setHealth(failed.node ?? "", "Schedulable");
    await runningAt(3, stepsOf(shrunk));
    const rows = await listScalingEvents(db, { ...A, jobName: A.name, jobUid });
    expect(rows.map((row) => [row.fromReplicas, row.toReplicas, row.reason, row.outcome])).toEqual([
      [3, 2, "FaultyScaleDown", "Scaled"],
      [2, 3, "ScaleUp", "Scaled"],
    ]);
    expect(await running()).toMatchObject({ status: "True", reason: "Running" });
    const again = await listRestartEvents(db, { namespace: A.namespace, jobName: A.name });
    expect(again.map((row) => row.outcome)).toEqual(["recovered"]);
  }, 600_000);
});
