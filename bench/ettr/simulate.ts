import type { Cause, RecoveryPath } from "./causes";
import { lostProgress, type Mode, restartCosts, type TrainerCosts } from "./costs";
import { exponential, type Random, seededRandom, weightedIndex } from "./rng";

/**
 * A long run of one job under faults, second by second of wall clock, for one recovery mode: faults come
 * as a Poisson process over the time the job trains (mean gap: the MTTF), each with a cause drawn from the mix
 * (bench/ettr/causes.ts); each costs the control plane's time (resampled from what bench:ettr measured for its
 * path), then the trainer's restart (bench/ettr/costs.ts), then the training since the last checkpoint (or the
 * step in progress) again. ETTR = net training progress / wall clock. Every mode of one seed meets the same
 * faults (same gaps, causes and samples, in order), so the modes differ by their recovery alone.
 */
export const LOSS_KINDS = ["controlPlane", "processStart", "ncclInit", "stateLoad", "lostSteps"] as const;
export type LossKind = (typeof LOSS_KINDS)[number];

/** One fault as drawn: training time since the previous fault's recovery, its cause, a draw for its sample. */
export type FaultDraw = { gapS: number; cause: number; sampleU: number };

/**
 * Measured control-plane seconds, fault → every rank stepping again, by recovery path; `full`: a full
 * restart's (every pod recreated). Without those, a full restart takes the pod-replacement samples (one
 * node's pods recreated: a lower bound).
 */
export type ControlPlaneSamples = Record<RecoveryPath, readonly number[]> & { full?: readonly number[] };

export type SimulationInput = {
  mode: Mode;
  wallS: number;
  causes: readonly Cause[];
  costs: TrainerCosts;
  samples: ControlPlaneSamples;
};

export type SimulationResult = {
  mode: Mode;
  wallS: number;
  /** Net training progress kept at the end. */
  progressS: number;
  ettr: number;
  faults: number;
  byPath: Record<RecoveryPath, number>;
  /** Wall-clock seconds lost, by where they went (they and progressS sum to wallS). */
  lost: Record<LossKind, number>;
};

/** The faults of one seed: an endless stream, the same for every mode. */
export function* faultDraws(input: {
  seed: number;
  mttfS: number;
  causes: readonly Cause[];
}): Generator<FaultDraw> {
  const random: Random = seededRandom(input.seed);
  const weights = input.causes.map((cause) => cause.count);
  while (true) {
    const gapS = exponential(random, input.mttfS);
    const cause = weightedIndex(weights, random());
    yield { gapS, cause, sampleU: random() };
  }
}

/** The sample a draw picks (resampling with replacement). */
export function pickSample(samples: readonly number[], u: number): number {
  if (samples.length === 0) throw new Error("no measured control-plane sample for this recovery path");
  return samples[Math.min(samples.length - 1, Math.floor(u * samples.length))] as number;
}

const emptyLoss = (): Record<LossKind, number> =>
  Object.fromEntries(LOSS_KINDS.map((kind) => [kind, 0])) as Record<LossKind, number>;

/** The samples a fault's control-plane time is drawn from: a full restart recreates pods for every fault. */
function samplesFor(samples: ControlPlaneSamples, mode: Mode, path: RecoveryPath): readonly number[] {
  if (mode !== "full") return samples[path];
  return samples.full && samples.full.length > 0 ? samples.full : samples.replace;
}

export function simulate(input: SimulationInput, draws: Iterable<FaultDraw>): SimulationResult {
  const lost = emptyLoss();
  const byPath: Record<RecoveryPath, number> = { replace: 0, inplace: 0 };
  let wall = 0;
  let progress = 0;
  let faults = 0;
  /** Spends up to `seconds` of what is left of the run on `kind`. */
  const spend = (kind: LossKind, seconds: number) => {
    const spent = Math.min(seconds, input.wallS - wall);
    lost[kind] += spent;
    wall += spent;
  };
  for (const draw of draws) {
    const trained = Math.min(draw.gapS, input.wallS - wall);
    wall += trained;
    progress += trained;
    if (wall >= input.wallS) break;
    const cause = input.causes[draw.cause];
    if (!cause) throw new Error(`no cause ${draw.cause}`);
    faults += 1;
    byPath[cause.path] += 1;
    const rolledBack = lostProgress(input.mode, progress, input.costs);
    progress -= rolledBack;
    lost.lostSteps += rolledBack;
    spend("controlPlane", pickSample(samplesFor(input.samples, input.mode, cause.path), draw.sampleU));
    const restart = restartCosts(input.mode, cause.path, input.costs);
    spend("processStart", restart.processStart);
    spend("ncclInit", restart.ncclInit);
    spend("stateLoad", restart.stateLoad);
    if (wall >= input.wallS) break;
  }
  // Draws that ran out before the run did (a finite list): the rest is training.
  progress += input.wallS - wall;
  return {
    mode: input.mode,
    wallS: input.wallS,
    progressS: progress,
    ettr: progress / input.wallS,
    faults,
    byPath,
    lost,
  };
}
