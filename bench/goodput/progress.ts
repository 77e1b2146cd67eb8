/**
 * Goodput as training progress, from the trainer's own step lines (pure; no I/O).
 *
 * Input: every step line the ranks printed, each stamped with the time the benchmark read it, and the
 * faults it injected. The job's progress is that of synchronous data-parallel training: the job has done
 * step s once every rank has printed a good step >= s (a line with `loss=nan` is not progress). The demo
 * trainer's ranks are not synchronised, so a healthy rank may run ahead of a hung one; the job's step is
 * the minimum over ranks, as it would be behind an all-reduce.
 *
 * One fault (issue 14's definition, contract seam 1):
 * - progressStep/progressAt: the victims' last good step line before the fault (the stalled rank's last
 *   line; for a crash or a node failure, the last line before the kill: the step in flight is lost too);
 * - resumeStep: the step training restarted from: the victims' first good step after the fault − 1
 *   (the checkpoint's step, or the same step after peer recovery), at most progressStep;
 * - resumedAt: progress back at progressStep: the job completes the step after progressStep, less one
 *   step period (the time that step takes without a fault). Without a fault that is progressAt itself.
 * Lost seconds = resumedAt − progressAt (so the time spent redoing steps is in it); lost steps =
 * progressStep − resumeStep. Goodput = 1 − (lost time, overlapping faults counted once) / window.
 */

export type StepLine = { at: number; rank: number; step: number; good: boolean };

export type InjectedFault = { at: number; kind: string; victims: readonly number[] };

export type FaultLoss = {
  kind: string;
  injectedAt: number;
  progressStep: number | null;
  progressAt: number | null;
  resumeStep: number | null;
  resumedAt: number | null;
  lostMs: number | null;
  lostSteps: number | null;
};

const LINE = /step=(\d+) loss=(\S+) .*rank=(\d+)/;

/** A demo-trainer step line (also as the agent tees it, `[default3]:step=…`), or null for any other line. */
export function parseStepLine(line: string, at: number): StepLine | null {
  const match = LINE.exec(line);
  if (!match) return null;
  const loss = Number(match[2]);
  return { at, step: Number(match[1]), rank: Number(match[3]), good: Number.isFinite(loss) };
}

/** The job's step over time: [at, step] each time the minimum over `ranks` ranks' latest good step changed. */
export function jobProgress(lines: readonly StepLine[], ranks: number): { at: number; step: number }[] {
  const latest = new Map<number, number>();
  const series: { at: number; step: number }[] = [];
  for (const line of lines) {
    if (!line.good || line.rank >= ranks) continue;
    latest.set(line.rank, line.step);
    if (latest.size < ranks) continue;
    const step = Math.min(...latest.values());
    if (series.at(-1)?.step !== step) series.push({ at: line.at, step });
  }
  return series;
}

/** The median interval between a rank's consecutive good steps (n → n + 1): the step period. */
export function stepPeriodMs(lines: readonly StepLine[]): number {
  const last = new Map<number, StepLine>();
  const gaps: number[] = [];
  for (const line of lines) {
    if (!line.good) continue;
    const before = last.get(line.rank);
    if (before && line.step === before.step + 1) gaps.push(line.at - before.at);
    last.set(line.rank, line);
  }
  gaps.sort((a, b) => a - b);
  return gaps.length === 0 ? Number.NaN : (gaps[Math.floor(gaps.length / 2)] as number);
}

/** A rank's last good line at or before `at` (lines sorted by time). */
function lastGoodLine(lines: readonly StepLine[], input: { rank: number; at: number }): StepLine | null {
  let own: StepLine | null = null;
  for (const line of lines) {
    if (line.at > input.at) break;
    if (line.good && line.rank === input.rank) own = line;
  }
  return own;
}

/** Each victim's last good line before the fault, the lowest step among them. */
function lastProgress(lines: readonly StepLine[], fault: InjectedFault): StepLine | null {
  let found: StepLine | null = null;
  for (const rank of fault.victims) {
    const own = lastGoodLine(lines, { rank, at: fault.at });
    if (own && (found === null || own.step < found.step)) found = own;
  }
  return found;
}

/** The lowest of the victims' first good steps after `at` (null when one of them never stepped again). */
function firstStepAfter(lines: readonly StepLine[], fault: InjectedFault): number | null {
  let lowest: number | null = null;
  for (const victim of fault.victims) {
    const line = lines.find(
      (candidate) => candidate.at > fault.at && candidate.good && candidate.rank === victim,
    );
    if (!line) return null;
    lowest = lowest === null ? line.step : Math.min(lowest, line.step);
  }
  return lowest;
}

export function faultLoss(input: {
  lines: readonly StepLine[];
  progress: readonly { at: number; step: number }[];
  fault: InjectedFault;
  periodMs: number;
}): FaultLoss {
  const { lines, progress, fault, periodMs } = input;
  const open: FaultLoss = {
    kind: fault.kind,
    injectedAt: fault.at,
    progressStep: null,
    progressAt: null,
    resumeStep: null,
    resumedAt: null,
    lostMs: null,
    lostSteps: null,
  };
  const last = lastProgress(lines, fault);
  if (!last) return open;
  const first = firstStepAfter(lines, fault);
  const beyond = progress.find((point) => point.at > fault.at && point.step > last.step);
  const resumeStep = first === null ? null : Math.min(last.step, first - 1);
  const withProgress = { ...open, progressStep: last.step, progressAt: last.at, resumeStep };
  if (!beyond || resumeStep === null) return withProgress;
  const resumedAt = Math.max(last.at, beyond.at - periodMs);
  return {
    ...withProgress,
    resumedAt,
    lostMs: resumedAt - last.at,
    lostSteps: last.step - resumeStep,
  };
}

/** The length of the union of [from, to) intervals (faults whose recoveries overlap count once). */
export function unionMs(intervals: readonly { from: number; to: number }[]): number {
  const sorted = [...intervals].filter((i) => i.to > i.from).sort((a, b) => a.from - b.from);
  let total = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const { from, to } of sorted) {
    const start = Math.max(from, end);
    if (to > start) total += to - start;
    end = Math.max(end, to);
  }
  return total;
}

export type Goodput = {
  windowMs: number;
  periodMs: number;
  faults: FaultLoss[];
  /** Faults whose progress never resumed within the window: counted lost up to the window's end. */
  open: number;
  lostMs: number;
  goodput: number;
  /** Cross-check: the job's net progress in the window × the step period ÷ the window (ETTR). */
  ettr: number;
  stepsAtStart: number | null;
  stepsAtEnd: number | null;
};

const stepAt = (progress: readonly { at: number; step: number }[], at: number): number | null =>
  progress.filter((point) => point.at <= at).at(-1)?.step ?? null;

/** The job's goodput over [start, end] from its step lines and the faults injected in that window. */
export function measureGoodput(input: {
  lines: readonly StepLine[];
  ranks: number;
  faults: readonly InjectedFault[];
  window: { start: number; end: number };
}): Goodput {
  const lines = [...input.lines].sort((a, b) => a.at - b.at);
  const progress = jobProgress(lines, input.ranks);
  const periodMs = stepPeriodMs(lines);
  const { start, end } = input.window;
  const faults = input.faults.map((fault) => faultLoss({ lines, progress, fault, periodMs }));
  const intervals = faults.flatMap((loss) => {
    if (loss.progressAt === null) return [{ from: loss.injectedAt, to: end }];
    return [{ from: Math.max(start, loss.progressAt), to: Math.min(end, loss.resumedAt ?? end) }];
  });
  const windowMs = end - start;
  const lostMs = unionMs(intervals);
  const stepsAtStart = stepAt(progress, start);
  const stepsAtEnd = stepAt(progress, end);
  const net = stepsAtStart === null || stepsAtEnd === null ? Number.NaN : stepsAtEnd - stepsAtStart;
  return {
    windowMs,
    periodMs,
    faults,
    open: faults.filter((loss) => loss.resumedAt === null).length,
    lostMs,
    goodput: 1 - lostMs / windowMs,
    ettr: (net * periodMs) / windowMs,
    stepsAtStart,
    stepsAtEnd,
  };
}
