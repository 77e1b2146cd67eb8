import type { RecoveryPath } from "./causes";

/**
 * The trainer's own costs of a recovery, which the control-plane measurement cannot see (the stand-in
 * agents have no workers): each a named parameter with its source, or marked as an assumption. Overridable
 * with `--set name=value` (bench/ettr/config.ts). Times in seconds.
 */
export type TrainerCosts = {
  /** One training step of the 16,384-GPU job. */
  stepS: number;
  /** Training time between checkpoints. */
  checkpointIntervalS: number;
  /** A rank's process from exec to its training loop (interpreter, imports, CUDA context, model build). */
  processStartS: number;
  /** A replacement pod on a ready spare node: from created to its container running (image cached). */
  podStartS: number;
  /** NCCL communicators re-created across 16,384 ranks before the first step. */
  ncclInitS: number;
  /** Every rank's state read back from the checkpoint store. */
  checkpointLoadS: number;
  /** A restarted rank's state copied from a peer's memory (its data-parallel replica). */
  peerLoadS: number;
};

export type CostSource = { value: number; source: string };

/** Llama 3 (arXiv:2407.21783) section 3.3.4: a checkpoint holds 1 MB to 4 GB of model state per GPU. */
const STATE_PER_GPU_GB = 4;
/** Llama 3 section 3.3.1: Tectonic serves 2 TB/s sustained (7 TB/s peak) to the 16K-GPU cluster. */
const STORE_SUSTAINED_GB_PER_S = 2000;
/** Llama 3 section 3.3.1: 400 Gbps between GPUs (RoCE) = 50 GB/s per GPU. */
const GPU_LINK_GB_PER_S = 50;
const GPUS = 16_384;

export const DEFAULT_COSTS: Record<keyof TrainerCosts, CostSource> = {
  stepS: {
    value: 6,
    source:
      "derived: Llama 3 405B (arXiv:2407.21783), 6 × 405e9 params × 16.8M tokens a batch (section 3.4.1: 2,048 × 8,192) / (16,384 GPUs × 400 TFLOPs, Table 4) ≈ 6.2 s; figures taken from the paper as read, not re-checked here",
  },
  checkpointIntervalS: {
    value: 30 * 60,
    source: "assumption: 30 min (--checkpoint-min); no published interval for a run of this size was found",
  },
  processStartS: {
    value: 30,
    source:
      "assumption: 30 s (interpreter, imports, CUDA context, model build); Llama 3 section 3.3.4 names start-up time as a cost it cut but gives no figure",
  },
  podStartS: {
    value: 60,
    source:
      "assumption: 60 s for a replacement pod's container on a ready spare node, image cached (added to the process start of a pod replacement and of a full restart)",
  },
  ncclInitS: {
    value: 30,
    source:
      "assumption: 30 s to re-create the communicators of 16,384 ranks; no published figure at this scale was found",
  },
  checkpointLoadS: {
    value: (GPUS * STATE_PER_GPU_GB) / STORE_SUSTAINED_GB_PER_S,
    source: `derived: 16,384 GPUs × ${STATE_PER_GPU_GB} GB (Llama 3 section 3.3.4, the largest per-GPU state) / ${STORE_SUSTAINED_GB_PER_S / 1000} TB/s (Llama 3 section 3.3.1, Tectonic sustained)`,
  },
  peerLoadS: {
    value: STATE_PER_GPU_GB / GPU_LINK_GB_PER_S,
    source: `derived: ${STATE_PER_GPU_GB} GB (Llama 3 section 3.3.4) over one GPU's 400 Gbps link (Llama 3 section 3.3.1); a replaced node's 8 GPUs each copy from their own peer in parallel`,
  },
};

export function defaultCosts(): TrainerCosts {
  return Object.fromEntries(
    Object.entries(DEFAULT_COSTS).map(([name, entry]) => [name, entry.value]),
  ) as TrainerCosts;
}

/**
 * How the job recovers in each mode:
 * - full: every fault restarts the whole job from its checkpoint: every pod recreated (pod start + process
 *   start), NCCL init, checkpoint load; the steps since the checkpoint are lost.
 * - inplace: Rebound's recovery from the checkpoint: a node fault replaces the pod (pod start + process
 *   start), a software fault restarts the ranks in place (process start); then NCCL init, checkpoint load,
 *   the steps since the checkpoint lost.
 * - peer: the same paths, the state copied from a peer's memory instead; only the step in progress is lost.
 */
export const MODES = ["full", "inplace", "peer"] as const;
export type Mode = (typeof MODES)[number];

export const MODE_LABELS: Record<Mode, string> = {
  full: "full restart from checkpoint",
  inplace: "in place from checkpoint",
  peer: "peer state (in memory)",
};

/** The restart's costs after the control plane, in the order they are paid. */
export function restartCosts(
  mode: Mode,
  path: RecoveryPath,
  costs: TrainerCosts,
): { processStart: number; ncclInit: number; stateLoad: number } {
  const newPod = mode === "full" || path === "replace";
  return {
    processStart: costs.processStartS + (newPod ? costs.podStartS : 0),
    ncclInit: costs.ncclInitS,
    stateLoad: mode === "peer" ? costs.peerLoadS : costs.checkpointLoadS,
  };
}

/** Training time lost at a fault `progressS` into the run: back to the last checkpoint, or the current step. */
export function lostProgress(mode: Mode, progressS: number, costs: TrainerCosts): number {
  const unit = mode === "peer" ? costs.stepS : costs.checkpointIntervalS;
  return progressS - Math.floor(progressS / unit) * unit;
}
