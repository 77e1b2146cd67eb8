import path from "node:path";
import { readCheckpoint, writeJsonAtomically } from "./checkpoint";
import { createControlPoller } from "./faults";
import { runInProcess } from "./inprocess";
import { initialState } from "./peer-state";
import { type Env, parseTrainerArgs, readTorchEnv } from "./trainer-options";
import { saveCheckpoint, scheduledFor, type Trainer, trainStep } from "./training";

/**
 * A demo trainer for Rebound: no GPU, no dependencies, honours the torch environment (RANK, LOCAL_RANK,
 * WORLD_SIZE, JOB_RESTART_COUNT). Prints "training started", then every --step-ms one line
 *   step=<n> loss=<x.xxxx> throughput=<x.x> samples/s rank=<RANK>
 * with a slowly decaying, noisy loss; resumes from its checkpoint; prints "training finished" after --steps
 * steps (0 = forever) and exits 0. SIGUSR1 saves a checkpoint and exits 0; SIGTERM ends it at once.
 * Faults are injected per rank through DEMO_FAULT or a control file, see faults.ts.
 *
 * With INPROCESS_RESTART=1 under an agent run with --inprocess-restart (HyperPod's checkpointless setting)
 * it trains in a re-executable block behind the agent's barrier, see inprocess.ts; --peer-recovery makes a
 * restarted rank take its state from a healthy peer instead of the checkpoint.
 *
 *   node --import tsx examples/trainer/demo-trainer.ts --steps 100 --step-ms 100
 */

// biome-ignore lint/style/noProcessEnv: a standalone example; its environment is its input
const env: Env = process.env;

function tick(t: Trainer): void {
  const delay = trainStep(t);
  setTimeout(() => tick(t), delay);
}

function main(): void {
  const options = parseTrainerArgs(process.argv.slice(2), env);
  const torch = readTorchEnv(env);
  if (options.dumpEnvDir !== null)
    writeJsonAtomically(path.join(options.dumpEnvDir, `env-${torch.rank}.json`), env);
  const socketPath = env.HYPERPOD_ELASTICAGENT_SOCKET_SERVER_PATH;
  if (env.INPROCESS_RESTART === "1" && socketPath) {
    void runInProcess({ options, torch, socketPath }).catch((error: unknown) => {
      process.stderr.write(`demo-trainer: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(2);
    });
    return;
  }
  const { controlFile } = options;
  const resumed = readCheckpoint(options.checkpointDir);
  const t: Trainer = {
    options,
    torch,
    scheduled: scheduledFor(torch),
    poll: controlFile
      ? createControlPoller({ file: controlFile, rank: torch.rank, startedAt: performance.timeOrigin })
      : () => null,
    mode: { hang: false, nan: false, slow: false },
    state: initialState(resumed ?? 0),
  };
  process.on("SIGUSR1", () => {
    saveCheckpoint(t);
    process.stdout.write(`checkpoint saved on SIGUSR1 rank=${torch.rank}\n`);
    process.exit(0);
  });
  process.stdout.write(
    `training started rank=${torch.rank} local_rank=${torch.localRank} world_size=${torch.worldSize} restart=${torch.restartCount} at=${Date.now()}\n`,
  );
  if (resumed !== null)
    process.stdout.write(`resuming from checkpoint at step ${resumed} at=${Date.now()}\n`);
  setTimeout(() => tick(t), options.startupMs + options.stepMs);
}

try {
  main();
} catch (error) {
  process.stderr.write(`demo-trainer: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
}
