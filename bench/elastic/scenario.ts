import path from "node:path";
import type { JobRef } from "@/server/cluster/types";
import { tailLines } from "../goodput/tail";
import type { BenchOperator } from "../recovery/operator";
import { log } from "../recovery/phases";
import { type ElasticConfig, sizes } from "./config";
import { ELASTIC, otherJob, otherYaml } from "./jobs";
import {
  firstStartAt,
  parseTrainerLine,
  ranksTraining,
  type TrainerLine,
  trainingAt,
  type UsageSample,
} from "./usage";

/**
 * The scenario, watched from the trainer's own lines (the elastic job's pods' logs) and the cluster's pods:
 * the other team's job runs beside the elastic one, ends (its GPUs are freed), the elastic job grows to
 * every node; the other job comes back and the elastic job shrinks to make room; `cycles` times.
 */
export type Cycle = {
  /** The other job's last pod gone: its GPUs free. */
  freedAt: number;
  /** The operator set the elastic job's target to every node. */
  targetAt: number | null;
  /** The grown job's pods all created (the scaling step admitted). */
  podsAt: number | null;
  /** The first rank started at the new world size (the old ranks had saved and exited). */
  restartedAt: number | null;
  /** Every rank of the grown job trained (started at the new world size and printed a step). */
  scaledUpAt: number;
  /** The other job submitted again, and when it ran (every pod's agent running its ranks). */
  backAt: number;
  otherRunningAt: number;
  /** The elastic job trained at its smaller size again. */
  shrunkAt: number;
};

export type Watch = {
  lines: TrainerLine[];
  samples: UsageSample[];
  signals: Set<string>;
  stop(): Promise<void>;
};

/** Every 250 ms: GPUs not held by the other team's pods, and the elastic ranks that stepped in the last second. */
export function watch(operator: BenchOperator, config: ElasticConfig): Watch {
  const tail = tailLines({
    dir: path.join(operator.dataDir, "local", "pods", ELASTIC.namespace, ELASTIC.name),
    pollMs: 25,
    parse: parseTrainerLine,
  });
  const total = config.nodes * config.gpusPerNode;
  const lastStepAt = new Map<number, number>();
  const signals = new Set<string>();
  const samples: UsageSample[] = [];
  let seen = 0;
  const readLines = () => {
    for (; seen < tail.lines.length; seen += 1) {
      const line = tail.lines[seen] as TrainerLine;
      if (line.kind === "step") lastStepAt.set(line.rank, line.at);
    }
  };
  // Every pod of the other team holds a node's GPUs while it exists (running or still starting).
  const held = () =>
    operator.backend.pods
      .all()
      .filter(
        (pod) =>
          pod.namespace === otherJob(0).namespace && pod.phase !== "Succeeded" && pod.phase !== "Failed",
      ).length * config.gpusPerNode;
  const noteSignals = () => {
    const ranks = (operator.live(ELASTIC)?.pods ?? []).flatMap((pod) => pod.ranks);
    for (const rank of ranks) if (rank.signal) signals.add(rank.signal);
  };
  const timer = setInterval(() => {
    readLines();
    noteSignals();
    const at = Date.now();
    // One rank per GPU: a rank that stepped within the last second is a GPU training.
    samples.push({
      at,
      idleGpus: total - held(),
      usedGpus: ranksTraining(lastStepAt, { at, withinMs: 1000 }),
    });
  }, 250);
  return {
    lines: tail.lines,
    samples,
    signals,
    async stop() {
      clearInterval(timer);
      await tail.stop();
    },
  };
}

function summary(operator: BenchOperator, ref: JobRef): string {
  const job = operator.live(ref);
  if (!job) return `${ref.name}: not seen`;
  return `${ref.name}: ${job.phase} elastic=${JSON.stringify(job.elastic)} pods=${job.pods.length}`;
}

/**
 * Waits for `what` about the job `ref` (the elastic job unless said); on a timeout, says where that job
 * stands (its phase and last condition), then the elastic job's phase, scaling state and pods.
 */
async function until<T>(
  operator: BenchOperator,
  what: string,
  probe: () => T | null | undefined | false,
  ref: JobRef = ELASTIC,
): Promise<T> {
  try {
    return await operator.waitForJob(ref, what, probe, 300_000);
  } catch (error) {
    throw new Error(`${String(error)}\n${summary(operator, ELASTIC)}`);
  }
}

const gone = (operator: BenchOperator, ref: JobRef) =>
  operator.live(ref)?.phase === "Succeeded" && operator.backend.pods.list(ref).length === 0;

/** The elastic job trains at `replicas` pods after `after`: the time its last new rank stepped. */
export const trainedAt = (input: {
  operator: BenchOperator;
  watch: Watch;
  config: ElasticConfig;
  replicas: number;
  after: number;
}) =>
  until(input.operator, `the elastic job training at ${input.replicas} pods`, () =>
    trainingAt(input.watch.lines, {
      worldSize: input.replicas * input.config.gpusPerNode,
      after: input.after,
    }),
  );

export async function runCycle(input: {
  operator: BenchOperator;
  watch: Watch;
  config: ElasticConfig;
  cycle: number;
}): Promise<Cycle> {
  const { operator, config, cycle } = input;
  const { beside, max } = sizes(config);
  const other = otherJob(cycle);
  const freedAt = await until(
    operator,
    `${other.name} ended and its pods gone`,
    () => (gone(operator, other) ? Date.now() : null),
    other,
  );
  let targetAt: number | null = null;
  let podsAt: number | null = null;
  const scaledUpAt = await until(operator, "grown", () => {
    if (targetAt === null && operator.live(ELASTIC)?.elastic?.targetReplicas === max) targetAt = Date.now();
    if (podsAt === null && operator.backend.pods.list(ELASTIC).length >= max) podsAt = Date.now();
    return trainingAt(input.watch.lines, { worldSize: max * config.gpusPerNode, after: freedAt });
  });
  const restartedAt = firstStartAt(input.watch.lines, {
    worldSize: max * config.gpusPerNode,
    after: freedAt,
  });
  log(`cycle ${cycle + 1}: freed → grown to ${max} pods in ${scaledUpAt - freedAt} ms`);
  await new Promise((resolve) => setTimeout(resolve, config.holdSeconds * 1000));
  const back = otherJob(cycle + 1);
  const backAt = Date.now();
  await operator.submit(otherYaml(config, cycle + 1));
  const otherRunningAt = await until(
    operator,
    `${back.name} running`,
    () => {
      const job = operator.live(back);
      return job?.phase === "Running" && job.ranksRunning === config.otherPods * config.gpusPerNode
        ? Date.now()
        : null;
    },
    back,
  );
  const shrunkAt = await trainedAt({ ...input, replicas: beside, after: backAt });
  log(
    `cycle ${cycle + 1}: back → running in ${otherRunningAt - backAt} ms; elastic at ${beside} pods after ${shrunkAt - backAt} ms`,
  );
  return { freedAt, targetAt, podsAt, restartedAt, scaledUpAt, backAt, otherRunningAt, shrunkAt };
}
