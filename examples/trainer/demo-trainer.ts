import path from "node:path";
import { readCheckpoint, writeCheckpoint, writeJsonAtomically } from "./checkpoint";
import {
  type Command,
  createControlPoller,
  type FaultKind,
  parseDemoFault,
  type ScheduledFault,
} from "./faults";
import {
  type Env,
  parseTrainerArgs,
  readTorchEnv,
  type TorchEnv,
  type TrainerOptions,
} from "./trainer-options";

/**
 * A demo trainer for Rebound: no GPU, no dependencies, honours the torch environment (RANK, LOCAL_RANK,
 * WORLD_SIZE, JOB_RESTART_COUNT). Prints "training started", then every --step-ms one line
 *   step=<n> loss=<x.xxxx> throughput=<x.x> samples/s rank=<RANK>
 * with a slowly decaying, noisy loss; resumes from its checkpoint; prints "training finished" after --steps
 * steps (0 = forever) and exits 0. SIGUSR1 saves a checkpoint and exits 0; SIGTERM ends it at once.
 * Faults are injected per rank through DEMO_FAULT or a control file, see faults.ts.
 *
 *   node --import tsx examples/trainer/demo-trainer.ts --steps 100 --step-ms 100
 */

// biome-ignore lint/style/noProcessEnv: a standalone example; its environment is its input
const env: Env = process.env;

type Mode = { hang: boolean; nan: boolean; slow: boolean };

type Trainer = {
  options: TrainerOptions;
  torch: TorchEnv;
  scheduled: ScheduledFault[];
  poll: () => Command | null;
  mode: Mode;
  step: number;
};

/** Deterministic noise in [-1, 1] for (rank, step). */
function noise(rank: number, step: number): number {
  const x = Math.sin((rank + 1) * 12.9898 + step * 78.233) * 43_758.5453;
  return (x - Math.floor(x)) * 2 - 1;
}

function stepLine(t: Trainer): string {
  const { step, torch, mode } = t;
  const loss = mode.nan
    ? "nan"
    : (0.3 + 2.2 * Math.exp(-step / 300) + 0.05 * noise(torch.rank, step)).toFixed(4);
  const throughput = (1200 + 40 * noise(torch.rank + 7, step)) / (mode.slow ? 20 : 1);
  return `step=${step} loss=${loss} throughput=${throughput.toFixed(1)} samples/s rank=${torch.rank}`;
}

function saveCheckpoint(t: Trainer): void {
  if (t.torch.rank === 0) writeCheckpoint(t.options.checkpointDir, t.step);
}

function apply(t: Trainer, kind: FaultKind): void {
  switch (kind) {
    case "crash":
      process.stderr.write(
        `demo-trainer: injected crash on rank ${t.torch.rank} at step ${t.step} at=${Date.now()}\n`,
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
  const due = t.scheduled.filter((fault) => t.step >= fault.step);
  t.scheduled = t.scheduled.filter((fault) => t.step < fault.step);
  for (const fault of due) apply(t, fault.kind);
  const command = t.poll();
  if (command !== null) apply(t, command.kind);
}

function tick(t: Trainer): void {
  applyDue(t);
  if (!t.mode.hang) {
    t.step += 1;
    process.stdout.write(`${stepLine(t)}\n`);
    if (t.step % t.options.checkpointEvery === 0) saveCheckpoint(t);
    if (t.options.steps > 0 && t.step >= t.options.steps) {
      saveCheckpoint(t);
      process.stdout.write(`training finished rank=${t.torch.rank} steps=${t.step}\n`);
      process.exit(0);
    }
  }
  setTimeout(() => tick(t), t.mode.slow ? t.options.stepMs * 5 : t.options.stepMs);
}

function mine(torch: TorchEnv): ScheduledFault[] {
  const all = torch.demoFault === null ? [] : parseDemoFault(torch.demoFault);
  return all.filter(
    (fault) =>
      (fault.rank === null || fault.rank === torch.rank) &&
      (fault.restart === null || fault.restart === torch.restartCount),
  );
}

function main(): void {
  const options = parseTrainerArgs(process.argv.slice(2), env);
  const torch = readTorchEnv(env);
  const { controlFile } = options;
  if (options.dumpEnvDir !== null)
    writeJsonAtomically(path.join(options.dumpEnvDir, `env-${torch.rank}.json`), env);
  const resumed = readCheckpoint(options.checkpointDir);
  const t: Trainer = {
    options,
    torch,
    scheduled: mine(torch),
    poll: controlFile
      ? createControlPoller({ file: controlFile, rank: torch.rank, startedAt: performance.timeOrigin })
      : () => null,
    mode: { hang: false, nan: false, slow: false },
    step: resumed ?? 0,
  };
  process.on("SIGUSR1", () => {
    saveCheckpoint(t);
    process.stdout.write(`checkpoint saved on SIGUSR1 rank=${torch.rank}\n`);
    process.exit(0);
  });
  process.stdout.write(
    `training started rank=${torch.rank} local_rank=${torch.localRank} world_size=${torch.worldSize} restart=${torch.restartCount}\n`,
  );
  if (resumed !== null) process.stdout.write(`resuming from checkpoint at step ${resumed}\n`);
  setTimeout(() => tick(t), options.startupMs + options.stepMs);
}

try {
  main();
} catch (error) {
  process.stderr.write(`demo-trainer: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
}
