import { parseArgs } from "node:util";
import { integerReader, stringOptions } from "../lib/flags";
import { MTTF_HOURS_16K } from "./causes";
import { DEFAULT_COSTS, defaultCosts, type TrainerCosts } from "./costs";

/**
 * bench:ettr's knobs:
 *   --pods 2048            the measured job: pods × 8 ranks on KWOK nodes (16 for a quick look)
 *   --faults 5             faults of each kind measured: node faults (pod replaced) and rank crashes (in place)
 *   --full-restarts 2      then full restarts measured (the operator's restart-job: every pod recreated)
 *   --step-ms 1000         the stand-in ranks step this often
 *   --budget-s 1500        wall-clock budget of the measurement (set-up included; the Go build excepted)
 *   --days 30              the simulated run
 *   --seed 1               the simulation's faults (the same for every mode)
 *   --mttf-h 1.8           mean time to failure of the 16,384-GPU job (Kokolis et al. 2024, bench/ettr/causes.ts)
 *   --checkpoint-min 30    training between checkpoints
 *   --set name=value       a trainer cost (bench/ettr/costs.ts), in seconds; repeatable
 *   --measured FILE        skip the measurement: take the control-plane samples from an earlier run's output
 *                          (the file holding its `BENCH ettr {…}` line)
 *   --verbose              the cluster's and the operator's logs on stderr
 */
export type EttrConfig = {
  pods: number;
  faults: number;
  fullRestarts: number;
  stepMs: number;
  budgetS: number;
  days: number;
  seed: number;
  mttfH: number;
  costs: TrainerCosts;
  measured: string | null;
  verbose: boolean;
};

const DEFAULTS = {
  pods: "2048",
  faults: "5",
  "full-restarts": "2",
  "step-ms": "1000",
  "budget-s": "1500",
  days: "30",
  seed: "1",
} as const;

type Flag = keyof typeof DEFAULTS;

function positive(name: string, text: string): number {
  const value = Number(text);
  if (!(value > 0) || !Number.isFinite(value))
    throw new Error(`--${name}: expected a positive number, got ${text}`);
  return value;
}

/** `--set name=value` overrides of the trainer's costs. */
export function applyCostOverrides(costs: TrainerCosts, overrides: readonly string[]): TrainerCosts {
  const next = { ...costs };
  for (const override of overrides) {
    const [name, value] = override.split("=");
    if (!name || value === undefined || !(name in DEFAULT_COSTS))
      throw new Error(
        `--set: expected name=value with name one of ${Object.keys(DEFAULT_COSTS).join(", ")}, got ${override}`,
      );
    const seconds = Number(value);
    if (!(seconds >= 0)) throw new Error(`--set ${name}: expected seconds >= 0, got ${value}`);
    next[name as keyof TrainerCosts] = seconds;
  }
  return next;
}

export function parseConfig(argv: string[]): EttrConfig {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...stringOptions<Flag>(DEFAULTS),
      "mttf-h": { type: "string", default: String(MTTF_HOURS_16K) },
      "checkpoint-min": { type: "string", default: String(DEFAULT_COSTS.checkpointIntervalS.value / 60) },
      set: { type: "string", multiple: true, default: [] },
      measured: { type: "string" },
      verbose: { type: "boolean", default: false },
    },
  });
  const int = integerReader<Flag>(DEFAULTS, values);
  const checkpointIntervalS = positive("checkpoint-min", String(values["checkpoint-min"])) * 60;
  const costs = applyCostOverrides({ ...defaultCosts(), checkpointIntervalS }, values.set ?? []);
  return {
    pods: int("pods", 1),
    faults: int("faults", 1),
    fullRestarts: int("full-restarts", 0),
    stepMs: int("step-ms", 1),
    budgetS: int("budget-s", 60),
    days: positive("days", String(values.days)),
    seed: int("seed", 0),
    mttfH: positive("mttf-h", String(values["mttf-h"])),
    costs,
    measured: values.measured ?? null,
    verbose: values.verbose === true,
  };
}
