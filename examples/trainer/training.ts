import { writeCheckpoint } from "./checkpoint";
import { type Command, type FaultKind, parseDemoFault, type ScheduledFault } from "./faults";
import { applyStep, type TrainingState } from "./peer-state";
import type { TorchEnv, TrainerOptions } from "./trainer-options";

/**
 * One demo training step and what it prints, shared by the process-level loop (demo-trainer.ts) and the
 * in-process-restart loop (inprocess.ts):
 *   step=<n> loss=<x.xxxx> throughput=<x.x> samples/s rank=<RANK>
 */

export type Mode = { hang: boolean; nan: boolean; slow: boolean };

export type Trainer = {
  options: TrainerOptions;
  torch: TorchEnv;
  scheduled: ScheduledFault[];
  poll: () => Command | null;
  mode: Mode;
  /** step (the last one done), loss state, weights and optimizer moments. */
  state: TrainingState;
};

/** Deterministic noise in [-1, 1] for (rank, step). */
function noise(rank: number, step: number): number {
  const x = Math.sin((rank + 1) * 12.9898 + step * 78.233) * 43_758.5453;
  return (x - Math.floor(x)) * 2 - 1;
}

const lossAt = (rank: number, step: number) => 0.3 + 2.2 * Math.exp(-step / 300) + 0.05 * noise(rank, step);

function stepLine(t: Trainer): string {
  const { torch, mode } = t;
  const { step } = t.state;
  const loss = mode.nan ? "nan" : lossAt(torch.rank, step).toFixed(4);
  const throughput = (1200 + 40 * noise(torch.rank + 7, step)) / (mode.slow ? 20 : 1);
  return `step=${step} loss=${loss} throughput=${throughput.toFixed(1)} samples/s rank=${torch.rank}`;
}

export function saveCheckpoint(t: Trainer): void {
  if (t.torch.rank === 0) writeCheckpoint(t.options.checkpointDir, t.state.step);
}

function apply(t: Trainer, kind: FaultKind): void {
  switch (kind) {
    case "crash":
      process.stderr.write(
        `demo-trainer: injected crash on rank ${t.torch.rank} at step ${t.state.step} at=${Date.now()}\n`,
      );
      process.exit(1);
      break;
    case "hang":
    case "nan":
    case "slow":
      t.mode[kind] = true;
      break;
    case "none":
      t.mode = { hang: false, nan: false, slow: false };
      break;
    default:
      kind satisfies never;
  }
}

function applyDue(t: Trainer): void {
  const due = t.scheduled.filter((fault) => t.state.step >= fault.step);
  t.scheduled = t.scheduled.filter((fault) => t.state.step < fault.step);
  for (const fault of due) apply(t, fault.kind);
  const command = t.poll();
  if (command !== null) apply(t, command.kind);
}

/** One step (unless hanging); exits 0 after the last one. Returns the delay before the next. */
export function trainStep(t: Trainer): number {
  applyDue(t);
  if (!t.mode.hang) {
    t.state.step += 1;
    applyStep(t.state, lossAt(t.torch.rank, t.state.step));
    process.stdout.write(`${stepLine(t)}\n`);
    if (t.state.step % t.options.checkpointEvery === 0) saveCheckpoint(t);
    if (t.options.steps > 0 && t.state.step >= t.options.steps) {
      saveCheckpoint(t);
      process.stdout.write(`training finished rank=${t.torch.rank} steps=${t.state.step}\n`);
      process.exit(0);
    }
  }
  return t.mode.slow ? t.options.stepMs * 5 : t.options.stepMs;
}

/** DEMO_FAULT's faults for this rank and restart count. */
export function scheduledFor(torch: TorchEnv): ScheduledFault[] {
  const all = torch.demoFault === null ? [] : parseDemoFault(torch.demoFault);
  return all.filter(
    (fault) =>
      (fault.rank === null || fault.rank === torch.rank) &&
      (fault.restart === null || fault.restart === torch.restartCount),
  );
}
