import { cp } from "node:fs/promises";
import path from "node:path";
import { type FaultFacts, jobGoodput } from "@/server/domain/goodput";
import { injectFault } from "@/server/operator/api/faults";
import { entryProgress, listRestartEvents } from "@/server/store/restart-events/queries";
import { type BenchJob, deleteJob, NAMESPACE, waitStepping } from "../recovery/job";
import type { BenchOperator } from "../recovery/operator";
import { log } from "../recovery/phases";
import type { GoodputConfig, Mode } from "./config";
import { goodputJobYaml } from "./job";
import { type LogEvent, parseLogEvent } from "./milestones";
import {
  type InjectedFault,
  measureGoodput,
  parseRestoreLine,
  type RestoreSource,
  type StepLine,
} from "./progress";
import { type PlannedFault, victimsOf } from "./schedule";
import { tailLines, tailStepLines } from "./tail";

/**
 * One mode's run: submit its job, wait until every rank steps, then inject the planned faults at their
 * offsets (a fault due while the job is still recovering waits until every rank steps again, and says how
 * late it came; the next one then comes an interval after it, not at once), and read the step lines
 * throughout. Ends once the last slot is over and the job steps
 * again, then deletes the job. The operator's restart events are read only to check the mode did what it
 * says (which recovery actions ran); goodput comes from the step lines alone.
 */
export type ModeRun = {
  mode: Mode;
  lines: StepLine[];
  faults: (InjectedFault & { lateMs: number })[];
  window: { start: number; end: number };
  /** Recovery actions the operator recorded, by action (PLR, JLR, POD_REPLACEMENT, …). */
  actions: Record<string, number>;
  /** The console's goodput over the same window, from the operator's restart rows (a cross-check). */
  console: { goodput: number; basis: string };
  /** Rank starts that took their state from a peer, and from the checkpoint (every rank of a restart). */
  restored: Record<RestoreSource, number>;
  startMs: number;
  /** The recovery milestones the pods' logs show (milestones.ts), and when the operator detected each fault. */
  events: LogEvent[];
  detections: number[];
};

/** Waits until every rank steps; on a timeout, says what the operator saw (phase, recovery, ranks). */
async function stepping(operator: BenchOperator, job: BenchJob): Promise<void> {
  try {
    await waitStepping(operator, job, 180_000);
  } catch (error) {
    const live = operator.live(job.ref);
    const states = live?.pods.flatMap((pod) => pod.ranks.map((rank) => rank.rule_states.JobHang ?? "none"));
    const counts: Record<string, number> = {};
    for (const state of states ?? []) counts[state] = (counts[state] ?? 0) + 1;
    const seen = { phase: live?.phase, recovery: live?.recovery, running: live?.ranksRunning, counts };
    throw new Error(`${String(error)}; the operator saw ${JSON.stringify(seen)}`);
  }
}

/**
 * Waits until every fault's victims are past the step they had reached (steps redone after a checkpoint
 * reload take a while after the ranks run again), at most 2 minutes: a fault still open then counts as
 * lost up to the window's end.
 */
async function settled(input: { lines: StepLine[]; faults: InjectedFault[]; start: number }): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const now = Date.now();
    const { open } = measureGoodput({ ...input, window: { start: input.start, end: now } });
    if (open === 0) return;
    await sleepUntil(now + 1000);
  }
}

const sleepUntil = (at: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));

function inject(operator: BenchOperator, job: BenchJob, fault: PlannedFault): string | null {
  const done = injectFault({
    backend: operator.backend,
    live: operator.deps.live,
    ref: job.ref,
    input: { kind: fault.kind, rank: fault.rank },
  });
  return "node" in done && typeof done.node === "string" ? done.node : null;
}

/**
 * What the operator recorded for the window's faults: recovery actions by kind (PLR, JLR, POD_REPLACEMENT…),
 * and the console's own goodput over the window (server/domain/goodput over the restart rows' progress
 * facts), to set beside the benchmark's, which comes from the step lines alone.
 */
async function recorded(operator: BenchOperator, job: BenchJob, window: { start: number; end: number }) {
  const events = await listRestartEvents(operator.db, {
    namespace: job.ref.namespace,
    jobName: job.ref.name,
  });
  const actions: Record<string, number> = {};
  for (const event of events) actions[event.action] = (actions[event.action] ?? 0) + 1;
  const detections = events.map((event) => event.detectedAt.getTime()).sort((a, b) => a - b);
  const facts: FaultFacts[] = events.map((event) => ({
    faultAt: event.faultAt.getTime(),
    detectedAt: event.detectedAt.getTime(),
    recoveredAt: event.recoveredAt?.getTime() ?? null,
    outcome: event.outcome === "recovered" || event.outcome === "failed" ? event.outcome : "pending",
    ...entryProgress(event.progress),
  }));
  const figure = jobGoodput(facts, { startedAt: window.start, now: window.end });
  return { actions, detections, console: { goodput: figure.goodput ?? Number.NaN, basis: figure.basis } };
}

type Drive = {
  operator: BenchOperator;
  config: GoodputConfig;
  job: BenchJob;
  plan: PlannedFault[];
  lines: StepLine[];
  failedNodes: Set<string>;
};

/** Injects the planned faults from the steady state; returns them and the measured window. */
async function drive(input: Drive): Promise<Pick<ModeRun, "faults" | "window">> {
  const { operator, config, job, plan, failedNodes } = input;
  const start = Date.now();
  const faults: ModeRun["faults"] = [];
  for (const planned of plan) {
    // On its slot, and never within an interval of the one before (a late fault does not bring on a burst).
    const previous = faults.at(-1)?.at ?? Number.NEGATIVE_INFINITY;
    const due = Math.max(start + planned.offsetMs, previous + config.intervalMs);
    await sleepUntil(due);
    await stepping(operator, job);
    // A failed node "reboots" once its pods were replaced, so a later node fault finds a spare again.
    for (const node of failedNodes) operator.backend.nodes.setHealth(node, "Schedulable");
    failedNodes.clear();
    const at = Date.now();
    const node = inject(operator, job, planned);
    if (node) failedNodes.add(node);
    const lateMs = at - (start + planned.offsetMs);
    faults.push({ at, kind: planned.kind, victims: victimsOf(planned, config.ranksPerNode), lateMs });
    log(
      `${job.ref.name} fault ${planned.index + 1}/${plan.length}: ${planned.kind} rank ${planned.rank}, ${lateMs} ms late`,
    );
  }
  await sleepUntil(start + config.durationMs);
  await stepping(operator, job);
  await settled({ lines: input.lines, faults, start });
  return { faults, window: { start, end: Date.now() } };
}

/** A mode that could not finish: what went wrong (the other modes still run). */
export type ModeFailure = { mode: Mode; error: string };

export async function runMode(input: {
  operator: BenchOperator;
  config: GoodputConfig;
  mode: Mode;
  plan: PlannedFault[];
}): Promise<ModeRun | ModeFailure> {
  const { operator, config, mode, plan } = input;
  const name = `goodput-${mode}`;
  const job: BenchJob = {
    ref: { namespace: NAMESPACE, name },
    nodes: config.nodes,
    ranksPerNode: config.ranksPerNode,
    ranks: config.nodes * config.ranksPerNode,
  };
  const tailDir = path.join(operator.dataDir, "local", "pods", NAMESPACE, name);
  const tail = tailStepLines({ dir: tailDir, pollMs: config.tailMs });
  // How restarted ranks took their state (a peer, or the checkpoint), from the same logs.
  const restores = tailLines({ dir: tailDir, pollMs: 500, parse: (line) => parseRestoreLine(line) });
  const events = tailLines({
    dir: tailDir,
    pollMs: config.tailMs,
    parse: (line, readAt, file) => parseLogEvent(line, { readAt, file }),
  });
  const failedNodes = new Set<string>();
  const submitted = Date.now();
  try {
    await operator.submit(goodputJobYaml({ ...config, name, mode }));
    await stepping(operator, job);
    const startMs = Date.now() - submitted;
    log(`${name}: ${job.ranks} ranks stepping ${startMs} ms after submission`);
    const measured = await drive({ operator, config, job, plan, lines: tail.lines, failedNodes });
    const { actions, console, detections } = await recorded(operator, job, measured.window);
    log(`${name}: ${tail.lines.length} step lines, actions ${JSON.stringify(actions)}`);
    await restores.stop();
    await events.stop();
    const count = (source: RestoreSource) => restores.lines.filter((line) => line === source).length;
    const restored = { peer: count("peer"), checkpoint: count("checkpoint") };
    return {
      ...{ mode, lines: tail.lines, ...measured, actions, console, restored, startMs },
      ...{ events: events.lines, detections },
    };
  } catch (error) {
    log(`${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return { mode, error: error instanceof Error ? error.message : String(error) };
  } finally {
    await tail.stop();
    await restores.stop();
    await events.stop();
    if (config.keepLogs)
      await cp(tailDir, path.join(config.keepLogs, name), { recursive: true }).catch((error: unknown) =>
        log(`${name}: keeping its logs: ${String(error)}`),
      );
    await deleteJob(operator, job).catch((error: unknown) => log(`${name}: deleting it: ${String(error)}`));
    for (const node of failedNodes) operator.backend.nodes.setHealth(node, "Schedulable");
  }
}
