import type { JobContext } from "./deps";
import type { PendingRecord } from "./job-state";
import type { Ledger } from "./ledger";
import type { ObservedPod } from "./observe";
import { reportedRanks } from "./ranks";

/**
 * Training progress on each restart row (goodput, server/domain/goodput; contract seam 1), from the rank
 * statuses the agents already report (step, last_line_at):
 * - at detection (faultProgress, with the row): progressStep, the job's step (the slowest rank's: a
 *   synchronous job has done a step once every rank has), and progressAt, the stalled ranks' last line for
 *   a hang (so the rule's window counts) or the fault's time otherwise (the crash). A fault while the job
 *   had not got its progress back from the previous one carries that one's last progress on.
 * - after the restart (trackProgress, each reconcile while a row waits): lines printed since the agents
 *   took their /start are the restarted training's; resumeStep = the lowest step first seen among them − 1
 *   (the checkpoint step, or the same step after a peer recovery), and resumedAt = when every reporting
 *   rank is back at progressStep or later (the slowest rank's line that got there).
 *
 * Cost: nothing per rank on a job that has no row waiting (a map look-up per reconcile); a restarted
 * operator reads a job's waiting row once. What waits is kept per operator process (by its ledger), so a
 * restarted operator picks it up from the row. A store without `resume` (the unit tests' in-memory one)
 * records the facts at detection only.
 */

type Watch = {
  rowId: string;
  progressStep: number;
  progressAt: number;
  /** When the restart's agents took their /start; null while restarting (lines then are not the new run's). */
  restartedAt: number | null;
  /** Lowest resume step seen so far, and the one last written to the row. */
  resumeStep: number | null;
  writtenResumeStep: number | null;
};

/** Per operator process: job uid → what waits (null: read, nothing waits). */
const processes = new WeakMap<Ledger, Map<string, Watch | null>>();
const MAX_JOBS = 10_000;

function watches(ctx: JobContext): Map<string, Watch | null> {
  let jobs = processes.get(ctx.deps.ledger);
  if (!jobs) {
    jobs = new Map();
    processes.set(ctx.deps.ledger, jobs);
  }
  return jobs;
}

function setWatch(ctx: JobContext, watch: Watch | null): void {
  const jobs = watches(ctx);
  jobs.delete(ctx.job.uid);
  jobs.set(ctx.job.uid, watch);
  if (jobs.size <= MAX_JOBS) return;
  const oldest = jobs.keys().next();
  if (!oldest.done) jobs.delete(oldest.value);
}

const tracked = (ctx: JobContext) => ctx.deps.restartEvents.resume !== undefined;

type RankLine = { rank: number; step: number | null; at: number };

/** Every reported rank with its step and last line's time (NaN without one); agents that did not answer: none. */
function* rankLines(pods: readonly ObservedPod[]): Generator<RankLine> {
  for (const view of pods) {
    for (const rank of reportedRanks(view)) {
      const at = rank.last_line_at === null ? Number.NaN : Date.parse(rank.last_line_at);
      yield { rank: rank.rank, step: rank.step, at };
    }
  }
}

type StepLine = RankLine & { step: number };
const printedStep = (line: RankLine): line is StepLine => line.step !== null && Number.isFinite(line.at);
const lowest = (values: readonly number[]): number | null =>
  values.length === 0 ? null : Math.min(...values);

const HANG = /^(LogHang_|LogStateHanging_)/;

/** The job's last progress before the fault, from this reconcile's rank statuses; null when none printed a step. */
function observedProgress(
  ctx: JobContext,
  record: PendingRecord,
): { progressStep: number; progressAt: number } | null {
  const lines = [...rankLines(ctx.obs.pods)]
    .filter(printedStep)
    .filter((line) => line.at <= record.detectedAt);
  const step = lowest(lines.map((line) => line.step));
  if (step === null) return null;
  const faulted = new Set(record.ranks);
  const stalledAt = lowest(lines.filter((line) => faulted.has(line.rank)).map((line) => line.at));
  const hang = HANG.test(record.reason) && stalledAt !== null;
  return { progressStep: step, progressAt: hang ? Math.min(stalledAt, record.faultAt) : record.faultAt };
}

/**
 * The row's progress facts for a fault being recorded (writeRecord), and the row now waiting for the
 * training to be back. A fault while the job's training was not back yet (no rank past the waiting row's
 * step) carries that row's last progress on. Idempotent for the same row (a retried write gets the same).
 */
export async function faultProgress(
  ctx: JobContext,
  record: PendingRecord,
): Promise<{ progressStep: number; progressAt: number } | null> {
  const prior = tracked(ctx) ? await waiting(ctx) : null;
  const observed = observedProgress(ctx, record);
  const inherit = prior !== null && (observed === null || observed.progressStep <= prior.progressStep);
  const facts = inherit ? { progressStep: prior.progressStep, progressAt: prior.progressAt } : observed;
  if (!tracked(ctx)) return facts;
  if (facts === null || record.action === "FAIL") setWatch(ctx, null);
  else if (prior?.rowId !== record.id) {
    setWatch(ctx, {
      rowId: record.id,
      ...facts,
      restartedAt: null,
      resumeStep: null,
      writtenResumeStep: null,
    });
  }
  return facts;
}

/** The restart of row `id` is over (its agents took /start): lines from now on are the restarted training's. */
export function restarted(ctx: JobContext, id: string, at: number): void {
  const waiting = watches(ctx).get(ctx.job.uid);
  if (waiting && waiting.rowId === id && waiting.restartedAt === null) waiting.restartedAt = at;
}

/** The job stops (failed, suspended, deleted) before its training was back: nothing waits any more. */
export function forgetProgress(ctx: JobContext): void {
  watches(ctx).delete(ctx.job.uid);
}

/** What waits for this job, read from its latest row the first time this process looks. */
async function waiting(ctx: JobContext): Promise<Watch | null> {
  const jobs = watches(ctx);
  const known = jobs.get(ctx.job.uid);
  if (known !== undefined) return known;
  const row = (await ctx.deps.restartEvents.awaitingResume?.(ctx.job.uid)) ?? null;
  const watch: Watch | null =
    row === null
      ? null
      : {
          rowId: row.id,
          progressStep: row.progressStep,
          progressAt: row.progressAt.getTime(),
          restartedAt: row.outcome === "recovered" ? (row.recoveredAt?.getTime() ?? null) : null,
          resumeStep: row.resumeStep,
          writtenResumeStep: row.resumeStep,
        };
  setWatch(ctx, watch);
  return watch;
}

type Resumption = { slowest: StepLine | null; stale: boolean };

/** The restarted training's lines: the slowest rank's, and whether some reporting rank printed none yet. */
function resumption(pods: readonly ObservedPod[], since: number): Resumption {
  let slowest: StepLine | null = null;
  let stale = false;
  for (const line of rankLines(pods)) {
    if (!printedStep(line) || !(line.at >= since)) stale = true;
    else if (slowest === null || line.step < slowest.step) slowest = line;
  }
  return { slowest, stale };
}

/** Notes what this reconcile's rank statuses say of the waiting row's training; writes only a change. */
async function advance(ctx: JobContext, watch: Watch, restartedAt: number): Promise<void> {
  const { slowest, stale } = resumption(ctx.obs.pods, restartedAt);
  if (slowest === null) return;
  const resumeStep = Math.min(watch.resumeStep ?? slowest.step - 1, slowest.step - 1);
  const back = !stale && slowest.step >= watch.progressStep;
  if (!back && resumeStep === watch.writtenResumeStep) return;
  const resumedAt = back ? new Date(Math.min(slowest.at, ctx.now)) : null;
  await ctx.deps.restartEvents.resume?.(watch.rowId, { resumeStep, resumedAt });
  watch.resumeStep = resumeStep;
  watch.writtenResumeStep = resumeStep;
  if (back) setWatch(ctx, null);
}

/**
 * Each reconcile of a running job: while a row waits for the training to be back, notes the resume step
 * and, once every rank is at the fault's step again, when. A failed write is logged and tried again at
 * the next reconcile (goodput's bookkeeping never fails a reconcile).
 */
export async function trackProgress(ctx: JobContext): Promise<void> {
  if (!tracked(ctx)) return;
  try {
    const watch = await waiting(ctx);
    if (watch !== null && watch.restartedAt !== null) await advance(ctx, watch, watch.restartedAt);
  } catch (error) {
    ctx.deps.log.warn("restart progress not recorded; trying again", {
      job: `${ctx.job.ref.namespace}/${ctx.job.ref.name}`,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}
