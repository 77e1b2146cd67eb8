import { rm } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import type { JobRef } from "@/server/cluster/types";
import { listRestartEvents } from "@/server/store/restart-events/queries";
import { createSeededTestDatabase } from "@/test/database";
import { ensureHyperPodAgent, HYPERPOD_AGENT_VERSION } from "@/test/hyperpod-agent";
import type { OperatorConfig } from "./reconcilers/deps";
import { hyperpodrunJobYaml, hyperpodWorkDir } from "./testing/hyperpod-worker";
import { demoJobYaml } from "./testing/jobs";
import { type LocalOperator, startLocalOperator } from "./testing/local-operator";

/**
 * A foreign `/stop` (issue 33 item 3): a process that can reach one agent of the demo job (2 pods of 4
 * ranks) sends it `/stop` straight to its port. The operator must record an AgentStateDrift fault naming
 * that pod and its ranks and restart the job in place: with our pushing agent the fault recorded within
 * 1 s and every rank running again (new processes) within 2 s; polled (REBOUND_AGENT_PUSH=0) it is
 * recorded within the poll interval and a small slack, as it is with AWS's unchanged hyperpodrun
 * (test/hyperpod-agent.ts; installed on first use, about 2.6 GB of wheels).
 *
 * Our agent answers only callers with its pod's credential (issue 34 item 2; a stranger's /stop gets 401
 * and changes nothing, test/adversarial/agent-credential.integration-test.ts). The stop the operator did
 * not send can still come from one that holds it: a process of the pod itself, or a second operator with
 * the same key. Here the test plays such a process, and reads the agents as one (`asPod`).
 */
const NAMESPACE = "hyperpod-ns-llm-research";
const RANKS = 4;
const BUDGET_MS = 2000;
/** Issue 33: a drift our pushing agent reports is detected within a second. */
const PUSHED_DETECTION_MS = 1000;
/**
 * A polled drift is detected (the record's detectedAt, the operator's own clock) within one poll and this:
 * the /stop's own answer (the time is taken before it is sent) and the reconcile that sees it. Three runs on
 * a 2-core machine saw it detected after 45–115 ms with a 100 ms poll; the rest is room for a loaded
 * machine. When this test then sees the record (its 50 ms probe, the record's write) is held to BUDGET_MS.
 */
const POLL_SLACK_MS = 400;

let database: { url: string; drop: () => Promise<void> } | null = null;
let operator: LocalOperator | null = null;
let workDir: string | null = null;
const INSTALL_TIMEOUT_MS = 20 * 60_000;

async function start(name: string, config: Partial<OperatorConfig>): Promise<LocalOperator> {
  database = await createSeededTestDatabase(`it_agent_drift_${name}`);
  operator = await startLocalOperator({
    databaseUrl: database.url,
    nodes: 2,
    gpusPerNode: RANKS,
    config: { stopTimeoutSeconds: 5, ...config },
  });
  return operator;
}

afterEach(async () => {
  await operator?.stop();
  await database?.drop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
  operator = null;
  database = null;
  workDir = null;
}, 60_000);

type Ranks = { status: string; pids: number[] };

/** The header a holder of the pod's credential sends (hyperpodrun ignores it). */
const asPod = (url: string) => ({
  authorization: `Bearer ${operator?.backend.agentCredential?.(url) ?? ""}`,
});

/** What an agent says right now, as any process on its port would read it. */
async function agentRanks(url: string): Promise<Ranks | null> {
  const response = await fetch(`${url}/status`, { headers: asPod(url) }).catch(() => null);
  if (!response?.ok) return null;
  const body = (await response.json()) as { status: string; ranks?: { state: string; pid: number | null }[] };
  const running = (body.ranks ?? []).filter((rank) => rank.state === "running" && rank.pid !== null);
  return { status: body.status, pids: running.map((rank) => rank.pid as number) };
}

const agentUrls = (op: LocalOperator, ref: JobRef) =>
  op.backend.pods
    .list(ref)
    .sort((a, b) => a.index - b.index)
    .map((pod) => pod.agentUrl ?? "");

/** Every rank of both pods running, none of them one of `before` (when given). */
async function allRunning(urls: string[], before: ReadonlySet<number> = new Set()): Promise<number[] | null> {
  const ranks = await Promise.all(urls.map(agentRanks));
  const pids = ranks.flatMap((each) => (each?.status === "running" ? each.pids : []));
  return pids.length === urls.length * RANKS && pids.every((pid) => !before.has(pid)) ? pids : null;
}

/** hyperpodrun lists no ranks: every agent RUNNING, having entered RUNNING after `since`. */
async function runningSince(urls: string[], since: number): Promise<boolean> {
  const states = await Promise.all(
    urls.map(async (url) => {
      const response = await fetch(`${url}/status`, { headers: asPod(url) }).catch(() => null);
      return response?.ok
        ? ((await response.json()) as { status: string; transitions?: { RUNNING?: string } })
        : null;
    }),
  );
  return states.every(
    (state) => state?.status === "running" && Date.parse(state.transitions?.RUNNING ?? "") > since,
  );
}

async function driftRow(op: LocalOperator, ref: JobRef) {
  const rows = await listRestartEvents(op.db, { namespace: ref.namespace, jobName: ref.name });
  return rows.find((row) => row.faultReason === "AgentStateDrift") ?? null;
}

async function diagnosis(op: LocalOperator, ref: JobRef, urls: string[]): Promise<string> {
  const rows = await listRestartEvents(op.db, { namespace: ref.namespace, jobName: ref.name });
  const agents = await Promise.all(
    urls.map((url) => fetch(`${url}/status`, { headers: asPod(url) }).then((r) => r.text(), String)),
  );
  return [op.live(ref)?.phase, JSON.stringify(rows), ...agents].join("\n");
}

type Probes = {
  /** Every rank running before the stop (our agent: their pids). */
  before: (urls: string[]) => Promise<number[] | boolean | null>;
  /** Every rank running again after the stop sent at `sentAt`. */
  again: (urls: string[], input: { before: ReadonlySet<number>; sentAt: number }) => Promise<unknown>;
};

const ourAgent: Probes = {
  before: (urls) => allRunning(urls),
  again: async (urls, { before }) => allRunning(urls, before),
};

/** Sends the foreign /stop to pod 1's agent; returns when the fault was recorded and all ranks ran again. */
async function foreignStop(op: LocalOperator, input: { yaml: string; probes: Probes; timeoutMs: number }) {
  const ref = await op.submit(input.yaml);
  const urls = await op.waitFor("every pod listed with its agent", () => {
    const listed = agentUrls(op, ref);
    return listed.length === 2 && listed.every(Boolean) ? listed : null;
  });
  const ran = await op.waitFor("every rank running", () => input.probes.before(urls), input.timeoutMs);
  const before = new Set(Array.isArray(ran) ? ran : []);
  const sentAt = Date.now();
  const stopped = await fetch(`${urls[1]}/stop`, {
    method: "POST",
    headers: { "content-type": "application/json", ...asPod(urls[1] ?? "") },
    body: "{}",
  });
  expect(stopped.ok, `${stopped.status} ${await stopped.text()}`).toBe(true);
  let recordedMs: number | null = null;
  let runningMs: number | null = null;
  await op
    .waitFor(
      "the drift recorded and every rank running again",
      async () => {
        if (recordedMs === null && (await driftRow(op, ref))) recordedMs = Date.now() - sentAt;
        if (recordedMs !== null && (await input.probes.again(urls, { before, sentAt })))
          runningMs = Date.now() - sentAt;
        return runningMs !== null;
      },
      input.timeoutMs,
    )
    .catch(async (error: Error) => {
      throw new Error(`${error.message}\n${await diagnosis(op, ref, urls)}`);
    });
  const row = await driftRow(op, ref);
  const job = await op.backend.getJob(ref);
  // The operator's own detection time (the record's detectedAt), beside when this test saw the record.
  const detectedMs = row ? row.detectedAt.getTime() - sentAt : Number.NaN;
  return {
    recordedMs: recordedMs ?? Number.NaN,
    detectedMs,
    runningMs: runningMs ?? Number.NaN,
    row,
    job,
    ref,
  };
}

const realAgent: Probes = {
  before: async (urls) => runningSince(urls, 0),
  again: async (urls, { sentAt }) => runningSince(urls, sentAt),
};

/** The demo's shape (2 pods) under hyperpodrun, 1 rank a pod, the test worker in a folder its pods can read. */
async function hyperpodrunJob(name: string): Promise<string> {
  const agent = await ensureHyperPodAgent();
  const work = await hyperpodWorkDir("rebound-agent-drift-");
  workDir = work.dir;
  return hyperpodrunJobYaml({
    name,
    namespace: NAMESPACE,
    hyperpodrun: agent.hyperpodrun,
    work,
    replicas: 2,
    nproc: 1,
    spec: '  nprocPerNode: "1"\n',
  });
}

const demoJob = (name: string) => demoJobYaml({ name, nodes: 2, ranks: RANKS, hangSeconds: 30 });

describe("a foreign /stop to one agent of the demo job", () => {
  it("with our pushing agent: AgentStateDrift recorded within 1 s, all ranks running again within 2 s", async () => {
    const op = await start("push", {});
    const result = await foreignStop(op, {
      yaml: demoJob("it-drift-push"),
      probes: ourAgent,
      timeoutMs: 120_000,
    });
    console.info(
      `foreign /stop (pushing agent): fault detected after ${result.detectedMs} ms, recorded after ${result.recordedMs} ms, all ${2 * RANKS} ranks running again after ${result.runningMs} ms`,
    );
    expect(result.row).toMatchObject({
      action: "PLR",
      pods: ["it-drift-push-workers-1"],
      ranks: [4, 5, 6, 7],
    });
    const events = await op.backend.listEvents(result.ref);
    const warning = events.find((event) => event.reason === "AgentStateDrift");
    expect(warning?.message).toContain("it-drift-push-workers-1 reports");
    expect(result.detectedMs).toBeLessThan(PUSHED_DETECTION_MS);
    expect(result.recordedMs).toBeLessThan(BUDGET_MS);
    expect(result.runningMs).toBeLessThan(BUDGET_MS);
    expect(result.job?.status.restartCount).toBe(1);
    await op.waitFor(
      "the record complete",
      async () => (await driftRow(op, result.ref))?.outcome === "recovered",
    );
  }, 180_000);

  it("with agents polled (REBOUND_AGENT_PUSH=0): recorded within the poll and a slack, recovered the same way", async () => {
    const pollMs = 100;
    const op = await start("poll", { agentPush: false, pollMs });
    const result = await foreignStop(op, {
      yaml: demoJob("it-drift-poll"),
      probes: ourAgent,
      timeoutMs: 120_000,
    });
    console.info(
      `foreign /stop (polled agent, poll ${pollMs} ms): fault detected after ${result.detectedMs} ms, recorded after ${result.recordedMs} ms, all ${2 * RANKS} ranks running again after ${result.runningMs} ms`,
    );
    expect(result.row).toMatchObject({
      action: "PLR",
      pods: ["it-drift-poll-workers-1"],
      ranks: [4, 5, 6, 7],
    });
    expect(result.detectedMs).toBeLessThan(pollMs + POLL_SLACK_MS);
    expect(result.recordedMs).toBeLessThan(BUDGET_MS);
    expect(result.runningMs).toBeLessThan(BUDGET_MS + pollMs);
    expect(result.job?.status.restartCount).toBe(1);
  }, 180_000);

  it(
    "with AWS's unchanged hyperpodrun (polled): recorded within the poll and a slack, both agents running again",
    async () => {
      const pollMs = 100;
      const yaml = await hyperpodrunJob("it-drift-hpr");
      const op = await start("hyperpodrun", { pollMs });
      const result = await foreignStop(op, { yaml, probes: realAgent, timeoutMs: 180_000 });
      console.info(
        `foreign /stop (hyperpodrun ${HYPERPOD_AGENT_VERSION}, polled every ${pollMs} ms): fault detected after ${result.detectedMs} ms, recorded after ${result.recordedMs} ms, both agents running again after ${result.runningMs} ms`,
      );
      expect(result.row).toMatchObject({ action: "PLR", pods: ["it-drift-hpr-workers-1"], ranks: [1] });
      expect(result.detectedMs).toBeLessThan(pollMs + POLL_SLACK_MS);
      expect(result.recordedMs).toBeLessThan(BUDGET_MS);
      expect(result.job?.status.restartCount).toBe(1);
    },
    INSTALL_TIMEOUT_MS,
  );
});
