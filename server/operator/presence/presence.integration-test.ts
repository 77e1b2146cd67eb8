import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAlive } from "@/server/cluster/local/process-tree";
import type { JobRef } from "@/server/cluster/types";
import { createDb } from "@/server/db/client";
import { injectFault } from "@/server/operator/api/faults";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { type LocalOperator, startLocalOperator } from "@/server/operator/testing/local-operator";
import { listRestartEvents } from "@/server/store/restart-events/queries";
import { createSeededTestDatabase } from "@/test/database";

/**
 * Our agents push (server/operator/presence): a real local operator, real agent processes. A SIGSTOPped
 * agent says nothing more on its watch stream; the operator judges it silent within the silence threshold
 * (700 ms) and faults its pod long before the 3 s unreachable timeout of a polled agent could have fired.
 * A job mixing a pushing agent and one that does not push (REBOUND_AGENT_WATCH=0: 404, as the unchanged
 * hyperpod-elastic-agent) recovers from a crash on either.
 */
let database: { url: string; drop: () => Promise<void> };
let operator: LocalOperator;

beforeAll(async () => {
  database = await createSeededTestDatabase("it_presence");
  operator = await startLocalOperator({
    databaseUrl: database.url,
    nodes: 3,
    gpusPerNode: 2,
    // Agents settle for 10 s after a state change (presence.ts settleMs) before the silence threshold
    // applies; 1 s here, so the SIGSTOP below meets a steady agent without the test waiting 10 s. The
    // threshold is Kubernetes' 700 ms (2 s is the local back end's default, silenceMsFor), so that pushing
    // is seen to beat the 3 s unreachable timeout by far.
    config: { stopTimeoutSeconds: 5, presence: { settleMs: 1000, silenceMs: 700 } },
  });
}, 120_000);

afterAll(async () => {
  await operator?.stop();
  const db = database ? createDb(database.url) : null;
  await db?.$disconnect();
  await database?.drop();
}, 60_000);

const runningWith = (ref: JobRef, ranks: number) => () => {
  const live = operator.live(ref);
  return live?.phase === "Running" && live.ranksRunning === ranks && live.recovery === null ? live : null;
};

async function recovered(ref: JobRef, count: number) {
  return operator.waitFor(
    `restart #${count} recovered`,
    async () => {
      const events = await listRestartEvents(operator.db, { namespace: ref.namespace, jobName: ref.name });
      const event = events[count - 1];
      return event && event.outcome !== "pending" ? { event, events } : null;
    },
    60_000,
  );
}

const agentPid = (ref: JobRef, pod: string) => operator.backend.pods.pidOf(ref.namespace, pod);

describe("a job whose agents push", () => {
  const ref = { namespace: "hyperpod-ns-llm-research", name: "it-push" };

  it("is watched, not polled, while it runs", async () => {
    await operator.submit(demoJobYaml({ name: ref.name, nodes: 3, ranks: 1 }));
    await operator.waitFor("3 running ranks", runningWith(ref, 3), 90_000);
    await operator.waitFor("3 agents pushing", () => operator.deps.presence?.stats().pushing === 3);
    const polls = async () =>
      (await operator.deps.metrics.registry.getSingleMetric("rebound_operator_agent_polls_total")?.get())
        ?.values[0]?.value ?? 0;
    const before = await polls();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // 3 agents polled every 100 ms would be ~45 polls.
    expect((await polls()) - before).toBe(0);
  }, 120_000);

  it("faults a SIGSTOPped agent's pod well before the 3 s unreachable timeout, and no other", async () => {
    const pod = `${ref.name}-workers-1`;
    const pid = agentPid(ref, pod);
    if (pid === null) throw new Error("no agent process");
    const stoppedAt = Date.now();
    process.kill(pid, "SIGSTOP");
    try {
      const { event, events } = await recovered(ref, 1);
      expect(event).toMatchObject({ faultReason: "AgentUnreachable", pods: [pod] });
      expect(events).toHaveLength(1);
      const detected = event.detectedAt.getTime() - stoppedAt;
      // Silence threshold 700 ms + a 50 ms sweep; a polled agent would need the 3 s timeout.
      expect(detected).toBeLessThan(2000);
      expect(event.faultAt.getTime()).toBeGreaterThanOrEqual(stoppedAt - 1000);
    } finally {
      if (isAlive(pid)) process.kill(pid, "SIGCONT");
    }
    await operator.waitFor("3 running ranks again", runningWith(ref, 3), 90_000);
    expect(agentPid(ref, pod)).not.toBe(pid);
    await operator.waitFor("3 agents pushing again", () => operator.deps.presence?.stats().pushing === 3);
  }, 180_000);

  it("forgets the job's agents when it is deleted", async () => {
    await operator.backend.requestDeletion(ref);
    await operator.waitFor("no agent watched", () => {
      const stats = operator.deps.presence?.stats();
      return stats && stats.pushing + stats.probing + stats.polled === 0;
    });
  }, 60_000);
});

/** Two replica specs: one agent pushes, the other (REBOUND_AGENT_WATCH=0) answers the watch with 404. */
function mixedJobYaml(name: string): string {
  const base = demoJobYaml({ name, nodes: 1, ranks: 2 });
  const [head, rest] = base.split("  replicaSpecs:\n");
  const [spec, tail] = (rest ?? "").split("  runPolicy:\n");
  const polled = (spec ?? "")
    .replace("- name: workers", "- name: polled")
    .replace(
      "image: rebound/demo:latest",
      'image: rebound/demo:latest\n              env:\n                - name: REBOUND_AGENT_WATCH\n                  value: "0"',
    );
  return `${head}  replicaSpecs:\n${spec}${polled}  runPolicy:\n${tail}`;
}

describe("a job mixing a pushing and a polled agent", () => {
  const ref = { namespace: "hyperpod-ns-llm-research", name: "it-mixed" };

  it("runs with one agent watched and one polled", async () => {
    await operator.submit(mixedJobYaml(ref.name));
    await operator.waitFor("4 running ranks", runningWith(ref, 4), 90_000);
    await operator.waitFor("one pushing, one polled", () => {
      const stats = operator.deps.presence?.stats();
      return stats?.pushing === 1 && stats.polled === 1;
    });
  }, 120_000);

  it.each([
    ["the pushing agent's", 1, `it-mixed-workers-0`],
    ["the polled agent's", 2, `it-mixed-polled-0`],
  ])(
    "recovers from a crash of a rank on %s pod",
    async (_which, count, pod) => {
      const rank = pod.includes("polled") ? 3 : 1;
      injectFault({
        backend: operator.backend,
        live: operator.deps.live,
        ref,
        input: { kind: "crash", rank },
      });
      const { event } = await recovered(ref, count);
      expect(event).toMatchObject({ faultReason: "WorkerCrash", outcome: "recovered", pods: [pod] });
      expect(event.detectedAt.getTime() - event.faultAt.getTime()).toBeLessThan(2000);
      await operator.waitFor("4 running ranks again", runningWith(ref, 4), 90_000);
    },
    120_000,
  );
});
