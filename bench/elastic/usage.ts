/**
 * The elastic benchmark's arithmetic (pure): how much of the GPU time other work left idle the elastic job
 * trained on, and when a scale-up was done as the trainer sees it.
 */

/** One look at the cluster: GPUs not held by other jobs, and GPUs whose elastic rank is training. */
export type UsageSample = { at: number; idleGpus: number; usedGpus: number };

export type IdleUse = { idleGpuHours: number; usedGpuHours: number; ratio: number };

/** Each sample holds until the next one (the last one closes the window); GPU-hours and used ÷ idle. */
export function idleGpuUse(samples: readonly UsageSample[]): IdleUse {
  let idle = 0;
  let used = 0;
  for (let index = 0; index + 1 < samples.length; index += 1) {
    const sample = samples[index] as UsageSample;
    const span = (samples[index + 1] as UsageSample).at - sample.at;
    idle += sample.idleGpus * span;
    used += Math.min(sample.usedGpus, sample.idleGpus) * span;
  }
  const hours = 3_600_000;
  return {
    idleGpuHours: idle / hours,
    usedGpuHours: used / hours,
    ratio: idle === 0 ? Number.NaN : used / idle,
  };
}

/** A demo-trainer line that matters here: a rank's start (with its world size) or a good step. */
export type TrainerLine =
  | { kind: "start"; at: number; rank: number; worldSize: number }
  | { kind: "step"; at: number; rank: number; step: number };

const START = /training started rank=(\d+) local_rank=\d+ world_size=(\d+)/;
const STEP = /step=(\d+) loss=(\S+) .*rank=(\d+)/;

export function parseTrainerLine(line: string, at: number): TrainerLine | null {
  const start = START.exec(line);
  if (start) return { kind: "start", at, rank: Number(start[1]), worldSize: Number(start[2]) };
  const step = STEP.exec(line);
  if (!step || !Number.isFinite(Number(step[2]))) return null;
  return { kind: "step", at, rank: Number(step[3]), step: Number(step[1]) };
}

/**
 * When the job trained at `worldSize` after `after`: every rank 0..worldSize−1 started at that world size
 * after `after` and then printed a step; the last of those steps. Null when not (yet).
 */
export function trainingAt(
  lines: readonly TrainerLine[],
  input: { worldSize: number; after: number },
): number | null {
  const started = new Set<number>();
  const stepped = new Map<number, number>();
  const note = (line: TrainerLine) => {
    if (line.kind === "step") {
      if (started.has(line.rank) && !stepped.has(line.rank)) stepped.set(line.rank, line.at);
      return;
    }
    stepped.delete(line.rank);
    if (line.worldSize === input.worldSize) started.add(line.rank);
    else started.delete(line.rank);
  };
  for (const line of lines) if (line.at > input.after && line.rank < input.worldSize) note(line);
  return stepped.size < input.worldSize ? null : Math.max(...stepped.values());
}

/** Ranks whose last good step is at most `withinMs` before `at`: training now. */
export function ranksTraining(
  lastStepAt: ReadonlyMap<number, number>,
  input: { at: number; withinMs: number },
): number {
  let count = 0;
  for (const at of lastStepAt.values()) if (input.at - at <= input.withinMs) count += 1;
  return count;
}

/** The first rank to start at `worldSize` after `after` (the restart at the new size began), or null. */
export function firstStartAt(
  lines: readonly TrainerLine[],
  input: { worldSize: number; after: number },
): number | null {
  const line = lines.find((l) => l.kind === "start" && l.at > input.after && l.worldSize === input.worldSize);
  return line?.at ?? null;
}

/** Steps rank `rank` printed again (its step went back after a restart): 0 when every resize kept its step. */
export function stepsRedone(lines: readonly TrainerLine[], rank: number): number {
  let highest = Number.NEGATIVE_INFINITY;
  let redone = 0;
  for (const line of lines) {
    if (line.kind !== "step" || line.rank !== rank) continue;
    if (line.step <= highest) redone += 1;
    highest = Math.max(highest, line.step);
  }
  return redone;
}
