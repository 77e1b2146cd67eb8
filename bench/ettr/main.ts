import { readFile } from "node:fs/promises";
import { exitWhenDone } from "../lib/isolated";
import { LLAMA3_CAUSES } from "./causes";
import { type EttrConfig, parseConfig } from "./config";
import { measureControlPlane } from "./control-plane";
import { MODES } from "./costs";
import {
  assumptionLines,
  benchJson,
  type Measured,
  measuredTable,
  type Simulated,
  simulationTable,
  targetLines,
} from "./report";
import { faultDraws, simulate } from "./simulate";

/**
 * `npm run bench:ettr` (bench/ettr.ts): the effective training time ratio of a long run of a 16,384-rank
 * job. The control plane's part is measured: the real operator on the Kubernetes back end recovers a job of
 * --pods pods × 8 ranks (stand-in agents, stepping ranks) from node faults and rank crashes
 * (bench/ettr/control-plane.ts). The run is simulated: --days of faults at a published rate and mix
 * (bench/ettr/causes.ts), each recovered by each mode at the measured control-plane time (resampled) plus
 * the trainer's own costs (bench/ettr/costs.ts). Prints the measurement, the ETTR table, `BENCH ettr {json}`
 * and the assumptions. Progress goes to stderr.
 */
const began = Date.now();
const log = (line: string) =>
  process.stderr.write(`[bench:ettr +${((Date.now() - began) / 1000).toFixed(1)}s] ${line}\n`);

/** The samples of an earlier run, from the file holding its `BENCH ettr {…}` line. */
async function measuredFrom(file: string): Promise<Measured> {
  const line = (await readFile(file, "utf8")).split("\n").find((text) => text.startsWith("BENCH ettr "));
  if (!line) throw new Error(`--measured: no "BENCH ettr {…}" line in ${file}`);
  const json = JSON.parse(line.slice("BENCH ettr ".length)) as {
    pods: number;
    ranks: number;
    samples_ms: { replace: number[]; inplace: number[]; full?: number[] };
  };
  return {
    pods: json.pods,
    ranksPerPod: json.ranks / json.pods,
    replaceMs: json.samples_ms.replace,
    inplaceMs: json.samples_ms.inplace,
    fullMs: json.samples_ms.full ?? [],
    faults: [],
    source: `samples from ${file}`,
  };
}

function runSimulation(config: EttrConfig, measured: Measured): Simulated {
  const samples = {
    replace: measured.replaceMs.map((value) => value / 1000),
    inplace: measured.inplaceMs.map((value) => value / 1000),
    full: measured.fullMs.map((value) => value / 1000),
  };
  const results = MODES.map((mode) =>
    simulate(
      { mode, wallS: config.days * 86_400, causes: LLAMA3_CAUSES, costs: config.costs, samples },
      faultDraws({ seed: config.seed, mttfS: config.mttfH * 3600, causes: LLAMA3_CAUSES }),
    ),
  );
  return { days: config.days, mttfH: config.mttfH, seed: config.seed, costs: config.costs, results };
}

async function main(): Promise<void> {
  const config = parseConfig(process.argv.slice(2));
  const measured = config.measured
    ? await measuredFrom(config.measured)
    : await measureControlPlane(config, log);
  if (measured.replaceMs.length === 0 || measured.inplaceMs.length === 0)
    throw new Error(
      "no control-plane sample for a pod replacement or an in-place restart: nothing to simulate",
    );
  const sim = runSimulation(config, measured);
  const lines = [
    "",
    ...measuredTable(measured),
    "",
    ...simulationTable(sim),
    ...targetLines(sim),
    "",
    `BENCH ettr ${JSON.stringify(benchJson(measured, sim))}`,
    "",
    ...assumptionLines(sim, measured),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

exitWhenDone(main(), log);
