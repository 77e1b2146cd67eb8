import { buildDemoTrainer } from "@/scripts/lib/demo-trainer-build";
import { exitWhenDone } from "../lib/isolated";
import { log } from "../recovery/phases";
import { percentile, round } from "../recovery/stats";
import { type ElasticConfig, parseConfig, sizes } from "./config";
import { type BenchEnvironment, openBenchEnvironment, seedTeams } from "./environment";
import { ELASTIC, elasticYaml, otherJob, otherYaml } from "./jobs";
import { type Cycle, runCycle, trainedAt, type Watch, watch } from "./scenario";
import { idleGpuUse, stepsRedone } from "./usage";

/**
 * Elastic benchmark (issue 14), run by `npm run bench:elastic` (bench/elastic.ts): on the local back end
 * with task governance (8 virtual nodes × 2 GPUs, two teams of 8 guaranteed GPUs each, lending and
 * borrowing), team A's elastic job (2 to 8 pods in steps of 2, a rank per GPU) trains beside team B's job
 * (4 pods). B's job ends: capacity freed → A scaled up to 8 pods, timed until every rank of the new world
 * size printed a step (capacity_to_scaled_up_ms). B's job comes back at a higher priority: A shrinks
 * gracefully to make room. `--cycles` times. Over the whole run, the share of the GPU-hours B's job left
 * idle that A's ranks trained on (idle_gpu_hours_used_ratio). Real operator, agents and demo trainers;
 * the trainer's own step lines say when it trained. Prints a summary, then `BENCH elastic <json>`.
 */

const config = parseConfig(process.argv.slice(2));

function report(input: {
  config: ElasticConfig;
  cycles: Cycle[];
  watch: Watch;
  window: { start: number; end: number };
}) {
  const { cycles } = input;
  const inWindow = input.watch.samples.filter((s) => s.at >= input.window.start && s.at <= input.window.end);
  const use = idleGpuUse(inWindow);
  const up = cycles.map((c) => c.scaledUpAt - c.freedAt);
  const after = (pick: (c: Cycle) => number | null) =>
    cycles.flatMap((c) => {
      const at = pick(c);
      return at === null ? [] : [at - c.freedAt];
    });
  const decided = after((c) => c.targetAt);
  const pods = after((c) => c.podsAt);
  const restarted = after((c) => c.restartedAt);
  const back = cycles.map((c) => c.otherRunningAt - c.backAt);
  const shrink = cycles.map((c) => c.shrunkAt - c.backAt);
  const { beside, max } = sizes(input.config);
  const json = {
    capacity_to_scaled_up_ms: round(percentile(up, 50)),
    capacity_to_scaled_up_max_ms: round(Math.max(...up)),
    capacity_to_scale_decided_ms: round(percentile(decided, 50)),
    capacity_to_pods_created_ms: round(percentile(pods, 50)),
    capacity_to_restart_at_new_size_ms: round(percentile(restarted, 50)),
    idle_gpu_hours_used_ratio: Number(use.ratio.toFixed(3)),
    idle_gpu_hours: Number(use.idleGpuHours.toFixed(4)),
    idle_gpu_hours_used: Number(use.usedGpuHours.toFixed(4)),
    other_job_back_to_running_ms: round(percentile(back, 50)),
    other_job_back_to_elastic_shrunk_ms: round(percentile(shrink, 50)),
    rank0_steps_redone: stepsRedone(input.watch.lines, 0),
    sigkills: [...input.watch.signals].filter((signal) => signal === "SIGKILL").length,
    cycles: cycles.length,
    elastic_pods_beside: beside,
    elastic_pods_max: max,
    gpus: input.config.nodes * input.config.gpusPerNode,
    window_s: Math.round((input.window.end - input.window.start) / 1000),
  };
  const lines = [
    `Elastic: ${json.gpus} GPUs (${input.config.nodes} nodes × ${input.config.gpusPerNode}); the elastic job at ${beside} pods beside the other team's ${input.config.otherPods}, ${max} when they end; ${cycles.length} cycles`,
    `capacity freed → every rank of the grown job stepping: ${up.join(", ")} ms (target set ${decided.join(", ")} ms; pods created ${pods.join(", ")} ms; first rank at the new size ${restarted.join(", ")} ms)`,
    `other job back → running: ${back.join(", ")} ms; → elastic job stepping at ${beside} pods: ${shrink.join(", ")} ms`,
    `idle GPU-hours used by the elastic job: ${json.idle_gpu_hours_used} of ${json.idle_gpu_hours} (${(use.ratio * 100).toFixed(1)}%) over ${json.window_s} s; SIGKILLs ${json.sigkills}; steps rank 0 printed again ${json.rank0_steps_redone}`,
  ];
  process.stdout.write(`${lines.join("\n")}\nBENCH elastic ${JSON.stringify(json)}\n`);
}

async function measure(env: BenchEnvironment): Promise<void> {
  const { operator } = env;
  const { beside } = sizes(config);
  const seen = watch(operator, config);
  try {
    await operator.submit(otherYaml(config, 0));
    await operator.waitForJob(
      otherJob(0),
      "the other team's job running",
      () => operator.live(otherJob(0))?.phase === "Running",
      180_000,
    );
    const submitted = Date.now();
    await operator.submit(elasticYaml(config));
    const start = await trainedAt({ operator, watch: seen, config, replicas: beside, after: submitted });
    log(`elastic job training at ${beside} pods ${start - submitted} ms after submission`);
    const cycles: Cycle[] = [];
    for (let cycle = 0; cycle < config.cycles; cycle += 1)
      cycles.push(await runCycle({ operator, watch: seen, config, cycle }));
    const end = Date.now();
    await seen.stop();
    report({ config, cycles, watch: seen, window: { start, end } });
  } finally {
    await seen.stop();
    await operator.backend.requestDeletion(ELASTIC).catch(() => undefined);
  }
}

async function main(): Promise<void> {
  await buildDemoTrainer();
  let env: BenchEnvironment | null = null;
  let interrupted = false;
  process.on("disconnect", () => {
    if (interrupted) return;
    interrupted = true;
    log("interrupted: stopping every process and removing the temp dirs");
    if (env) void env.close().finally(() => process.exit(130));
  });
  const guaranteed = (config.nodes - config.otherPods) * config.gpusPerNode;
  env = await openBenchEnvironment({
    nodes: config.nodes,
    gpusPerNode: config.gpusPerNode,
    pollMs: config.pollMs,
    seed: (db) => seedTeams(db, { a: guaranteed, b: config.otherPods * config.gpusPerNode }),
    governance: true,
  });
  if (interrupted) return env.close().finally(() => process.exit(130));
  try {
    await measure(env);
  } finally {
    await env.close();
  }
}

exitWhenDone(main(), (line) => process.stderr.write(`bench:elastic ${line}\n`));
