import type { BenchConfig } from "./config";
import { type FaultKind, measureFault, type Sample } from "./cycle";
import { type BenchJob, benchJobYaml, NAMESPACE, waitStepping } from "./job";
import type { BenchOperator } from "./operator";

/** Runs the measured faults of one kind on a job, one after the other, each from the steady state. */

export const log = (() => {
  const began = Date.now();
  return (line: string) =>
    process.stderr.write(`[bench ${((Date.now() - began) / 1000).toFixed(1)}s] ${line}\n`);
})();

/** Spreads the faults over every pod and every local rank. */
const rankFor = (index: number, ranks: number) => (index * 9 + 3) % ranks;

export async function startJob(input: {
  operator: BenchOperator;
  config: BenchConfig;
  name: string;
  fullRestarts: boolean;
}): Promise<{ job: BenchJob; startMs: number }> {
  const { operator, config, name } = input;
  const job: BenchJob = {
    ref: { namespace: NAMESPACE, name },
    nodes: config.nodes,
    ranksPerNode: config.ranksPerNode,
    ranks: config.nodes * config.ranksPerNode,
  };
  const started = Date.now();
  await operator.submit(
    benchJobYaml({ ...config, name, maxRestarts: 1000, fullRestarts: input.fullRestarts }),
  );
  await waitStepping(operator, job, 180_000);
  const startMs = Date.now() - started;
  log(`${name}: ${job.ranks} ranks stepping ${startMs} ms after submission`);
  return { job, startMs };
}

function summary(sample: Sample): string {
  const { event, stages } = sample;
  const detect = event.detectedAt.getTime() - event.faultAt.getTime();
  const restart = (event.recoveredAt?.getTime() ?? Number.NaN) - event.detectedAt.getTime();
  return `${event.action} rank ${sample.rank}: detected ${detect} ms after the fault, recovered ${restart} ms later ${JSON.stringify(stages)}`;
}

/** `count` faults, or fewer when `more()` says no before each one; returns the samples and the mean cycle. */
export async function runSeries(input: {
  operator: BenchOperator;
  job: BenchJob;
  kind: FaultKind;
  /** The restart every one of these faults must lead to. */
  action: "PLR" | "POD_REPLACEMENT" | "JLR";
  count: number;
  more?: (cycleMs: number) => boolean;
}): Promise<{ samples: Sample[]; cycleMs: number }> {
  const samples: Sample[] = [];
  const began = Date.now();
  const cycleMs = () => (samples.length === 0 ? 0 : (Date.now() - began) / samples.length);
  while (samples.length < input.count && (input.more?.(cycleMs()) ?? true)) {
    const rank = rankFor(samples.length, input.job.ranks);
    const sample = await measureFault({ ...input, rank });
    if (sample.event.action !== input.action)
      throw new Error(`a ${input.kind} led to ${sample.event.action}, not ${input.action}`);
    samples.push(sample);
    log(`${input.job.ref.name} ${input.kind} ${samples.length}/${input.count}: ${summary(sample)}`);
  }
  return { samples, cycleMs: cycleMs() };
}
