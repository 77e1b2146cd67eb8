import { describe, expect, it } from "vitest";
import { jobKey } from "@/server/cluster/types";
import type { OperatorDeps } from "@/server/operator/reconcilers/deps";
import { InjectedFailure, type Trip } from "@/server/operator/testing/call-faults";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { createReconcileHarness, type ReconcileHarness } from "@/server/operator/testing/reconcile-harness";

/**
 * Exactly-once restart records: every fault gets one restart-timeline row, completed exactly once, with
 * restartCount up by one and no pod created twice, whichever backend, agent or database call fails, and
 * whether the operator retries the reconcile or dies and a new one starts from what was persisted.
 *
 * Each scenario runs once cleanly to learn its sequence of calls; then once per call of that sequence,
 * failing before it takes effect and after (its answer lost), each followed by a retry or by a crash.
 */
type Mode = "retry" | "crash";

type Scenario = {
  name: string;
  yaml: string;
  /** What goes wrong (or is asked for) once the job runs. */
  inject(h: ReconcileHarness): void;
  /** When the scenario is over. */
  done(h: ReconcileHarness): boolean;
  /** After a failure: a person asks again for a manual restart the failed reconcile lost. */
  reask?(h: ReconcileHarness): void;
  expected: {
    rows: Array<{ reason: string; action: string; outcome: "recovered" | "failed"; completions: number }>;
    restartCount: number;
    podsCreated: number;
    phase: "Running" | "Failed";
    detections: number;
    restarts: number;
  };
};

const POD0 = "once-workers-0";
const POD1 = "once-workers-1";

// Records, not the crash-loop back-off, are under test (crash-loop.test.ts and the crash-loop integration
// test cover it): "0" turns it off, as HyperPod has none, so back-to-back faults restart at once.
const yaml = (extra: Partial<Parameters<typeof demoJobYaml>[0]> = {}) =>
  demoJobYaml({
    name: "once",
    nodes: 2,
    ranks: 2,
    gpusPerPod: 2,
    annotations: { "rebound.dev/max-restarts-without-progress": "0" },
    ...extra,
  });

const recoveredRunning = (h: ReconcileHarness) => {
  const state = h.state();
  return state.phase === "Running" && state.recovery === null && state.record === null;
};

const settledRows = (h: ReconcileHarness, count: number) =>
  h.store.rows().length === count && h.store.rows().every((row) => row.outcome !== "pending");

const crash = (at: number) => (h: ReconcileHarness) =>
  h.agents.fault(h.agentUrl(POD1), { reason: "WorkerCrash", at });

/** Runs that already saw their second fault (the superseding scenario). */
const secondFault = new WeakSet<ReconcileHarness>();

const SCENARIOS: Scenario[] = [
  {
    name: "a worker crash (PLR)",
    yaml: yaml(),
    inject: (h) => crash(h.clock())(h),
    done: (h) => recoveredRunning(h) && settledRows(h, 1),
    expected: {
      rows: [{ reason: "WorkerCrash", action: "PLR", outcome: "recovered", completions: 1 }],
      restartCount: 1,
      podsCreated: 0,
      phase: "Running",
      detections: 1,
      restarts: 1,
    },
  },
  {
    name: "a node fault (pod replacement)",
    yaml: yaml(),
    inject: (h) => h.cluster.setNodeHealth(h.cluster.pod(POD1)?.node ?? "", "Unschedulable", h.clock()),
    done: (h) => recoveredRunning(h) && settledRows(h, 1),
    expected: {
      rows: [{ reason: "NodeFault", action: "POD_REPLACEMENT", outcome: "recovered", completions: 1 }],
      restartCount: 1,
      podsCreated: 1,
      phase: "Running",
      detections: 1,
      restarts: 1,
    },
  },
  {
    name: "a crash past numRestartBeforeFullJobRestart (full job restart)",
    yaml: yaml({ restartsBeforeFullRestart: 0 }),
    inject: (h) => crash(h.clock())(h),
    done: (h) => recoveredRunning(h) && settledRows(h, 1),
    expected: {
      rows: [{ reason: "WorkerCrash", action: "JLR", outcome: "recovered", completions: 1 }],
      restartCount: 1,
      podsCreated: 2,
      phase: "Running",
      detections: 1,
      restarts: 1,
    },
  },
  {
    name: "a crash past jobMaxRetryCount (the job fails)",
    yaml: yaml().replace("jobMaxRetryCount: 100", "jobMaxRetryCount: 0"),
    inject: (h) => crash(h.clock())(h),
    done: (h) => h.state().phase === "Failed" && h.state().record === null && settledRows(h, 1),
    expected: {
      rows: [{ reason: "WorkerCrash", action: "FAIL", outcome: "failed", completions: 0 }],
      restartCount: 0,
      podsCreated: 0,
      phase: "Failed",
      detections: 1,
      restarts: 0,
    },
  },
  {
    name: "a second fault while agents restart (the first restart is superseded)",
    yaml: yaml(),
    inject: (h) => {
      h.agents.hold(true);
      crash(h.clock())(h);
    },
    done: (h) => {
      if (!secondFault.has(h) && h.state().recovery?.stage === "starting") {
        secondFault.add(h);
        h.agents.hold(false);
        h.agents.fault(h.agentUrl(POD0), { reason: "WorkerCrash", at: h.clock() });
        return false;
      }
      return secondFault.has(h) && recoveredRunning(h) && settledRows(h, 2);
    },
    expected: {
      rows: [
        { reason: "WorkerCrash", action: "PLR", outcome: "failed", completions: 1 },
        { reason: "WorkerCrash", action: "PLR", outcome: "recovered", completions: 1 },
      ],
      restartCount: 2,
      podsCreated: 0,
      phase: "Running",
      detections: 2,
      restarts: 1,
    },
  },
  {
    name: "a person's pod restart (ManualRestart)",
    yaml: yaml(),
    inject: (h) =>
      h.deps().requests.add(jobKey(h.ref), { kind: "restart-pod", pod: POD1, by: "engineer@rebound.local" }),
    reask: (h) => {
      const state = h.state();
      if (state.phase === "Running" && !state.recovery && !state.record && h.store.rows().length === 0)
        h.deps().requests.add(jobKey(h.ref), {
          kind: "restart-pod",
          pod: POD1,
          by: "engineer@rebound.local",
        });
    },
    done: (h) => recoveredRunning(h) && settledRows(h, 1),
    expected: {
      rows: [{ reason: "ManualRestart", action: "POD_REPLACEMENT", outcome: "recovered", completions: 1 }],
      restartCount: 0,
      podsCreated: 1,
      phase: "Running",
      detections: 0,
      restarts: 1,
    },
  },
];

async function histogramCount(deps: OperatorDeps, metric: "detectionLatency" | "restartLatency") {
  const { values } = await deps.metrics[metric].get();
  return values
    .filter((value) => value.metricName?.endsWith("_count"))
    .reduce((sum, value) => sum + value.value, 0);
}

async function observed(h: ReconcileHarness, metric: "detectionLatency" | "restartLatency") {
  const counts = await Promise.all(h.processes.map((deps) => histogramCount(deps, metric)));
  return counts.reduce((sum, count) => sum + count, 0);
}

type SettleOptions = { done: () => boolean; mode: Mode; reask?: () => void };

/** One reconcile; an injected failure is followed by a retry (next round) or a crash (a new operator). */
async function reconcileOnce(h: ReconcileHarness, opts: SettleOptions) {
  try {
    await h.reconcile();
  } catch (error) {
    if (!(error instanceof InjectedFailure)) throw error;
    if (opts.mode === "crash") h.crash();
    opts.reask?.();
  }
}

/** Reconciles until `done`. */
async function settle(h: ReconcileHarness, opts: SettleOptions) {
  for (let round = 0; round < 40; round += 1) {
    await reconcileOnce(h, opts);
    if (opts.done()) return;
  }
  throw new Error(`not settled after 40 reconciles: ${JSON.stringify(h.state())}`);
}

async function running(scenario: Scenario) {
  const h = createReconcileHarness({ yaml: scenario.yaml, nodes: 3, gpusPerNode: 2 });
  await settle(h, { done: () => h.state().phase === "Running", mode: "retry" });
  return { h, created: h.cluster.created.length, traced: h.log.trace.length };
}

async function run(scenario: Scenario, failure: Failure) {
  const { h, created, traced } = await running(scenario);
  if (failure) h.log.arm(failure.trip);
  scenario.inject(h);
  const mode = failure?.mode ?? "retry";
  await settle(h, { done: () => scenario.done(h), mode, reask: () => scenario.reask?.(h) });
  return { h, created, trace: h.log.trace.slice(traced) };
}

type Failure = { trip: Trip; mode: Mode } | null;

/** One row per fault, completed exactly once; restartCount up by one per restart; no pod created twice. */
function checkRecords(h: ReconcileHarness, expected: Scenario["expected"], podsBefore: number) {
  const rows = h.store.rows();
  const summary = rows.map(({ reason, action, outcome, completions }) => ({
    reason,
    action,
    outcome,
    completions,
  }));
  expect(summary).toEqual(expected.rows);
  for (const row of rows) expect(row.recoveredAt !== null).toBe(row.outcome === "recovered");
  expect(h.cluster.status().restartCount ?? 0).toBe(expected.restartCount);
  expect(h.cluster.created.slice(podsBefore)).toHaveLength(expected.podsCreated);
  expect(h.state().phase).toBe(expected.phase);
}

/**
 * The fault's event: once, but sent again when the answer to sending it was lost or the operator died
 * before saving that it was sent (Kubernetes events are best effort; the row is the record).
 */
function checkEvents(h: ReconcileHarness, expected: Scenario["expected"], failure: Failure) {
  const reasons = new Set(expected.rows.map((row) => row.reason));
  const events = h.cluster.events.filter((event) => reasons.has(event.reason)).length;
  const resent = failure?.mode === "crash" || failure?.trip.call === "backend.recordEvent" ? 1 : 0;
  expect(events).toBeGreaterThanOrEqual(expected.rows.length);
  expect(events).toBeLessThanOrEqual(expected.rows.length + resent);
}

/** Metrics once per operator process; a new operator counts only what it decided or wrote itself. */
async function checkMetrics(h: ReconcileHarness, expected: Scenario["expected"], failure: Failure) {
  const detections = await observed(h, "detectionLatency");
  const restarts = await observed(h, "restartLatency");
  if (failure?.mode === "crash") {
    expect(detections).toBeLessThanOrEqual(expected.detections);
    expect(restarts).toBeLessThanOrEqual(expected.restarts);
  } else {
    expect(detections).toBe(expected.detections);
    expect(restarts).toBe(expected.restarts);
  }
}

async function check(scenario: Scenario, failure: Failure) {
  const { h, created } = await run(scenario, failure);
  checkRecords(h, scenario.expected, created);
  checkEvents(h, scenario.expected, failure);
  await checkMetrics(h, scenario.expected, failure);
  return h;
}

const CALL = /^(.+)#(\d+)$/;

describe("restart records are written exactly once", () => {
  for (const scenario of SCENARIOS) {
    describe(scenario.name, () => {
      it("without failures", async () => {
        const h = await check(scenario, null);
        expect(h.processes).toHaveLength(1);
      });

      it("whichever call fails, before or after it takes effect, retried or after a crash", {
        timeout: 120_000,
      }, async () => {
        const { trace } = await run(scenario, null);
        const trips = trace.flatMap((entry): Trip[] => {
          const [, call = "", nth = "0"] = CALL.exec(entry) ?? [];
          return [
            { call, nth: Number(nth), when: "before" },
            { call, nth: Number(nth), when: "after" },
          ];
        });
        expect(trips.length).toBeGreaterThan(10);
        for (const trip of trips) {
          for (const mode of ["retry", "crash"] as const) {
            const h = await check(scenario, { trip, mode }).catch((error: unknown) => {
              throw new Error(`${trip.when} ${trip.call} #${trip.nth}, ${mode}: ${String(error)}`);
            });
            expect(h.log.fired(), `${trip.call} #${trip.nth}`).toBe(true);
          }
        }
      });
    });
  }
});
