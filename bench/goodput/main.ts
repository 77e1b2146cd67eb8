import { buildDemoTrainer } from "@/scripts/lib/demo-trainer-build";
import { seedIfEmpty } from "@/server/db/seed";
import { exitWhenDone } from "../lib/isolated";
import { type BenchEnvironment, openLocalEnvironment } from "../lib/local-environment";
import { log } from "../recovery/phases";
import { parseConfig } from "./config";
import { report } from "./report";
import { type ModeFailure, type ModeRun, runMode } from "./run-mode";
import { faultPlan } from "./schedule";

/**
 * Goodput benchmark (issue 14), run by `npm run bench:goodput` (bench/goodput.ts): a 64-rank local job
 * (8 virtual nodes × 8 ranks, one spare node) run by a real operator, real agents and real demo-trainer
 * processes, meets one fault every 30 s (crash, hang, NaN, node in turn) for 10 minutes, three ways: every
 * fault a full job restart, Rebound's checkpoint restarts, and Rebound's in-process peer recovery. Goodput
 * is training progress read from the trainer's own step lines (progress.ts says how), not the console's.
 *
 * The modes run one after the other on the same operator, each its own job: side by side, three 64-rank
 * jobs (216 processes) would share these 2 cores, and one mode's full restart (8 agents and 64 trainers
 * starting) would slow the others' steps and recoveries, so each mode's figure would depend on what the
 * others did at the time. One after the other, each meets the same faults at the same offsets on an
 * otherwise idle machine; the price is the run's length (3 × --minutes, or --seconds, plus start-ups).
 * Prints a table, then `BENCH goodput <json>`; progress goes to stderr.
 */

const config = parseConfig(process.argv.slice(2));

async function main(): Promise<void> {
  await buildDemoTrainer();
  const began = Date.now();
  let env: BenchEnvironment | null = null;
  let interrupted = false;
  // bench/goodput.ts closes the IPC channel on Ctrl-C (or by dying): clean up, then exit.
  process.on("disconnect", () => {
    if (interrupted) return;
    interrupted = true;
    log("interrupted: stopping every process and removing the temp dirs");
    if (env) void env.close().finally(() => process.exit(130));
  });
  // Task governance's admission is left out: the job's 64 GPUs are beyond the demo team's quota, and
  // admission plays no part in recovery.
  env = await openLocalEnvironment({
    name: "rebound-bench-goodput-",
    nodes: config.nodes + 1,
    gpusPerNode: config.ranksPerNode,
    pollMs: config.pollMs,
    agentPush: config.agentPush,
    seed: async (db) => {
      await seedIfEmpty(db);
    },
    governance: false,
  });
  if (interrupted) return env.close().finally(() => process.exit(130));
  const plan = faultPlan({
    durationMs: config.durationMs,
    intervalMs: config.intervalMs,
    ranks: config.nodes * config.ranksPerNode,
  });
  try {
    const runs: (ModeRun | ModeFailure)[] = [];
    for (const mode of config.modes) runs.push(await runMode({ operator: env.operator, config, mode, plan }));
    report(runs, config, Date.now() - began);
  } finally {
    await env.close();
  }
}

exitWhenDone(main(), (line) => process.stderr.write(`bench:goodput ${line}\n`));
