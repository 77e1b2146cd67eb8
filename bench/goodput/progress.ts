/**
 * Goodput as training progress, from the trainer's own step lines (pure; no I/O).
 *
 * Input: every step line the ranks printed, each stamped with the time the benchmark read it, and the
 * faults it injected. A line with `loss=nan` is not progress. The demo trainer's ranks are not
 * synchronised (no all-reduce holds a healthy rank back while another is hung, and on a loaded machine
 * one rank may step at half the pace of another), so a fault is measured on the ranks it hit, its victims
 * (the rank, or every rank of the failed node), as issue 14 defines it (contract seam 1):
 * - progressStep/progressAt: a victim's last good step line before the fault (the stalled rank's last
 *   line; for a crash or a node failure the last line before the kill: the step in flight is lost too);
 * - resumeStep: the step it restarted from: its first good step after the fault − 1 (the checkpoint's
 *   step, or the same step after peer recovery), at most progressStep;
 * - resumedAt: its progress back at progressStep: it completes the step after progressStep, less one step
 *   period (the time that step takes without a fault). Without a fault that is progressAt itself.
 * Lost seconds = resumedAt − progressAt (the time spent redoing steps is in it); lost steps =
 * progressStep − resumeStep. With several victims, the fault runs from the earliest progressAt to the
 * latest resumedAt, and its lost steps are the most any victim lost.
 * Goodput = 1 − (lost time, overlapping faults counted once) / window. Cross-check: ETTR, each rank's net
 * progress in the window × its step period ÷ the window, averaged over ranks (rollbacks subtract).
 */

export type StepLine = { at: number; rank: number; step: number; good: boolean };

/** Where a restarted rank took its state from, as the demo trainer says it. */
export type RestoreSource = "peer" | "checkpoint";

export function parseRestoreLine(line: string): RestoreSource | null {
  if (line.includes("state from peer rank=")) return "peer";
  if (line.includes("resuming from checkpoint at step")) return "checkpoint";
  return null;
}

export type InjectedFault = { at: number; kind: string; victims: readonly number[] };

export type FaultLoss = {
  kind: string;
  injectedAt: number;
  progressStep: number | null;
  progressAt: number | null;
  resumeStep: number | null;
  resumedAt: number | null;
  /** The latest victim's first good step line after its outage (the step it restarted from + 1). */
  firstStepAt: number | null;
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

const median = (values: number[]) => {
  values.sort((x, y) => x - y);
  return values.length === 0 ? Number.NaN : (values[Math.floor(values.length / 2)] as number);
};

/** Each rank's step period: the median interval between its consecutive good steps (n → n + 1). */
export function rankPeriodsMs(lines: readonly StepLine[]): Map<number, number> {
  const last = new Map<number, StepLine>();
  const gaps = new Map<number, number[]>();
  for (const line of lines) {
    if (!line.good) continue;
    const before = last.get(line.rank);
    if (before && line.step === before.step + 1) {
      const own = gaps.get(line.rank) ?? [];
      own.push(line.at - before.at);
      gaps.set(line.rank, own);
    }
    last.set(line.rank, line);
  }
  return new Map([...gaps].map(([rank, own]) => [rank, median(own)]));
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

/**
 * Where a victim's outage starts: from its last good line at the fault, the last line of its unbroken run of
 * steps (each the step after the one before, within a few periods): a hang or NaN takes effect at the
 * rank's next step, a crash at once. Lines more than `boundMs` after the fault are not looked at: a rank
 * without a break by then was not stopped by this fault.
 */
function outageStart(own: readonly StepLine[], input: { at: number; gapMs: number; boundMs: number }) {
  let index = -1;
  while (index + 1 < own.length && (own[index + 1] as StepLine).at <= input.at) index += 1;
  if (index < 0) return -1;
  while (index + 1 < own.length) {
    const line = own[index] as StepLine;
    const next = own[index + 1] as StepLine;
    if (next.step !== line.step + 1 || next.at - line.at > input.gapMs || line.at > input.at + input.boundMs)
      break;
    index += 1;
  }
  return index;
}

/** One victim's loss: from its last good line before its outage to its first good line past that step. */
function victimLoss(input: { lines: readonly StepLine[]; rank: number; at: number; periodMs: number }) {
  const own = input.lines.filter((line) => line.good && line.rank === input.rank);
  const index = outageStart(own, { at: input.at, gapMs: Math.max(3 * input.periodMs, 500), boundMs: 5000 });
  const last = own[index];
  if (last === undefined) return null;
  const after = own.slice(index + 1);
  const first = after[0];
  const beyond = after.find((line) => line.step > last.step);
  return {
    progressStep: last.step,
    progressAt: last.at,
    resumeStep: first === undefined ? null : Math.min(last.step, first.step - 1),
    firstStepAt: first?.at ?? null,
    resumedAt: beyond === undefined ? null : Math.max(last.at, beyond.at - input.periodMs),
  };
}

const OPEN = {
  progressStep: null,
  progressAt: null,
  resumeStep: null,
  resumedAt: null,
  firstStepAt: null,
  lostMs: null,
  lostSteps: null,
};

export function faultLoss(input: {
  lines: readonly StepLine[];
  fault: InjectedFault;
  periods: ReadonlyMap<number, number>;
}): FaultLoss {
  const { lines, fault, periods } = input;
  const victims = fault.victims.map((rank) =>
    victimLoss({ lines, rank, at: fault.at, periodMs: periods.get(rank) ?? 0 }),
  );
  const base = { kind: fault.kind, injectedAt: fault.at };
  const known = victims.filter((victim) => victim !== null);
  const first = known.reduce<(typeof known)[number] | null>(
    (earliest, victim) => (earliest === null || victim.progressAt < earliest.progressAt ? victim : earliest),
    null,
  );
  if (first === null) return { ...base, ...OPEN };
  const progress = { progressStep: first.progressStep, progressAt: first.progressAt };
  const resumed = known.map((victim) => victim.resumedAt);
  if (known.length < victims.length || resumed.some((at) => at === null))
    return { ...base, ...OPEN, ...progress };
  const resumedAt = Math.max(...(resumed as number[]));
  const lostSteps = Math.max(...known.map((victim) => victim.progressStep - (victim.resumeStep ?? 0)));
  const resumeStep = Math.min(...known.map((victim) => victim.resumeStep ?? 0));
  const firstStepAt = Math.max(...known.map((victim) => victim.firstStepAt ?? resumedAt));
  const lostMs = resumedAt - first.progressAt;
  return { ...base, ...progress, resumeStep, resumedAt, firstStepAt, lostMs, lostSteps };
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
  /** The median over ranks of their step periods. */
  periodMs: number;
  faults: FaultLoss[];
  /** Faults whose progress never resumed within the window: counted lost up to the window's end. */
  open: number;
  lostMs: number;
  goodput: number;
  /** Cross-check: each rank's net progress in the window × its step period ÷ the window, averaged. */
  ettr: number;
};

/** A rank's latest good step at `at` (lines sorted by time); null before its first. */
function stepAt(lines: readonly StepLine[], input: { rank: number; at: number }): number | null {
  return lastGoodLine(lines, input)?.step ?? null;
}

function ettr(input: {
  lines: readonly StepLine[];
  periods: ReadonlyMap<number, number>;
  window: { start: number; end: number };
}): number {
  const { lines, periods, window } = input;
  const ratios = [...periods].map(([rank, periodMs]) => {
    const from = stepAt(lines, { rank, at: window.start }) ?? 0;
    const to = stepAt(lines, { rank, at: window.end }) ?? from;
    return ((to - from) * periodMs) / (window.end - window.start);
  });
  return ratios.length === 0 ? Number.NaN : ratios.reduce((sum, ratio) => sum + ratio, 0) / ratios.length;
}

/** The job's goodput over [start, end] from its step lines and the faults injected in that window. */
export function measureGoodput(input: {
  lines: readonly StepLine[];
  faults: readonly InjectedFault[];
  window: { start: number; end: number };
}): Goodput {
  const lines = [...input.lines].sort((a, b) => a.at - b.at);
  const periods = rankPeriodsMs(lines);
  const { start, end } = input.window;
  const faults = input.faults.map((fault) => faultLoss({ lines, fault, periods }));
  const intervals = faults.map((loss) => ({
    from: Math.max(start, loss.progressAt ?? loss.injectedAt),
    to: Math.min(end, loss.resumedAt ?? end),
  }));
  const windowMs = end - start;
  const lostMs = unionMs(intervals);
  return {
    windowMs,
    periodMs: median([...periods.values()]),
    faults,
    open: faults.filter((loss) => loss.resumedAt === null).length,
    lostMs,
    goodput: 1 - lostMs / windowMs,
    ettr: ettr({ lines, periods, window: input.window }),
  };
}
