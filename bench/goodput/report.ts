import { round } from "../recovery/stats";
import { breakdownJson, breakdownTable, faultLines } from "./breakdown";
import type { GoodputConfig, Mode } from "./config";
import { type FaultLoss, type Goodput, measureGoodput } from "./progress";
import type { ModeFailure, ModeRun } from "./run-mode";
import { FAULT_KINDS } from "./schedule";

/** Turns each mode's step lines and faults into goodput, a table (stdout) and `BENCH goodput <json>`. */

const KEY: Record<Mode, string> = { full: "full_restart", inplace: "inplace", peer: "peer_recovery" };
const LABEL: Record<Mode, string> = {
  full: "full job restart only",
  inplace: "Rebound, checkpoint restarts",
  peer: "Rebound, in-process peer recovery",
};

type Measured = { run: ModeRun; goodput: Goodput };

const mean = (values: readonly number[]) =>
  values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length;

const lostS = (faults: readonly FaultLoss[]) =>
  mean(faults.flatMap((f) => (f.lostMs === null ? [] : [f.lostMs / 1000])));
const lostSteps = (faults: readonly FaultLoss[]) =>
  mean(faults.flatMap((f) => (f.lostSteps === null ? [] : [f.lostSteps])));

/** Downtime per fault: the window's lost time over its faults (an open fault counts up to the window's end). */
const downtimePerFaultS = (g: Goodput) =>
  g.faults.length === 0 ? Number.NaN : g.lostMs / 1000 / g.faults.length;

export function measureRuns(runs: readonly ModeRun[]): Measured[] {
  return runs.map((run) => ({ run, goodput: measureGoodput(run) }));
}

/** The fault window per mode as the command line gave it: whole minutes, else seconds. */
const windowText = (durationMs: number) =>
  durationMs % 60_000 === 0 ? `${durationMs / 60_000} min` : `${durationMs / 1000} s`;

const fmt = (value: number, digits: number, width: number) =>
  (Number.isFinite(value) ? value.toFixed(digits) : "-").padStart(width);

function table(measured: readonly Measured[], config: GoodputConfig): string[] {
  const lines = [
    `Goodput: ${config.nodes * config.ranksPerNode} ranks (${config.nodes} × ${config.ranksPerNode}), one fault every ${config.intervalMs / 1000} s (crash, hang, NaN, node in turn) for ${windowText(config.durationMs)} per mode, step ${config.stepMs} ms, checkpoint every ${config.checkpointEvery} steps, hang window ${config.hangSeconds} s, agents ${config.agentPush ? "push their state" : `polled every ${config.pollMs} ms`}`,
    `${"mode".padEnd(36)}${"goodput".padStart(8)}${"ETTR".padStart(7)}${"console".padStart(8)}${"faults".padStart(7)}${"s/fault".padStart(8)}${FAULT_KINDS.map((k) => `${k} s`.padStart(8)).join("")}${"steps/f".padStart(8)}  actions`,
  ];
  for (const { run, goodput } of measured) {
    const byKind = FAULT_KINDS.map((kind) => fmt(lostS(goodput.faults.filter((f) => f.kind === kind)), 2, 8));
    lines.push(
      `${LABEL[run.mode].padEnd(36)}${fmt(goodput.goodput, 4, 8)}${fmt(goodput.ettr, 4, 7)}${fmt(run.console.goodput, 4, 8)}${String(goodput.faults.length).padStart(7)}${fmt(downtimePerFaultS(goodput), 2, 8)}${byKind.join("")}${fmt(lostSteps(goodput.faults), 1, 8)}  ${JSON.stringify(run.actions)}`,
    );
  }
  return lines;
}

function modeJson({ run, goodput }: Measured): Record<string, number> {
  const key = KEY[run.mode];
  const json: Record<string, number> = {
    [`goodput_${key}`]: round(goodput.goodput * 10_000) / 10_000,
    [`ettr_${key}`]: round(goodput.ettr * 10_000) / 10_000,
    [`console_goodput_${key}`]: round(run.console.goodput * 10_000) / 10_000,
    [`downtime_per_fault_s_${key}`]: round(downtimePerFaultS(goodput) * 100) / 100,
    [`lost_steps_per_fault_${key}`]: round(lostSteps(goodput.faults)),
    [`faults_${key}`]: goodput.faults.length,
    [`rank_starts_from_peer_${key}`]: run.restored.peer,
    [`rank_starts_from_checkpoint_${key}`]: run.restored.checkpoint,
    [`faults_open_${key}`]: goodput.open,
    [`faults_late_max_ms_${key}`]: Math.max(0, ...run.faults.map((f) => f.lateMs)),
    [`window_s_${key}`]: Math.round(goodput.windowMs / 1000),
    [`step_period_ms_${key}`]: round(goodput.periodMs),
  };
  for (const kind of FAULT_KINDS)
    json[`downtime_${kind}_s_${key}`] =
      round(lostS(goodput.faults.filter((f) => f.kind === kind)) * 100) / 100;
  return json;
}

export function goodputJson(measured: readonly Measured[], config: GoodputConfig): Record<string, number> {
  const json: Record<string, number> = {};
  for (const m of measured) Object.assign(json, modeJson(m));
  const perFault = (mode: Mode) => {
    const found = measured.find((m) => m.run.mode === mode);
    return found ? downtimePerFaultS(found.goodput) : Number.NaN;
  };
  const full = perFault("full");
  Object.assign(json, {
    downtime_per_fault_reduction_vs_full: round((1 - perFault("peer") / full) * 1000) / 1000,
    downtime_per_fault_reduction_inplace_vs_full: round((1 - perFault("inplace") / full) * 1000) / 1000,
    ranks: config.nodes * config.ranksPerNode,
    minutes_per_mode: Math.round((config.durationMs / 60_000) * 100) / 100,
    fault_interval_s: config.intervalMs / 1000,
    trainer_step_ms: config.stepMs,
    checkpoint_every_steps: config.checkpointEvery,
    hang_window_s: config.hangSeconds,
    agent_push: config.agentPush ? 1 : 0,
  });
  // Numbers only: a mode not run leaves its keys (and the ratios needing it) out.
  return Object.fromEntries(Object.entries(json).filter(([, value]) => Number.isFinite(value)));
}

function goalLine(json: Record<string, number>): string {
  const peer = json.goodput_peer_recovery;
  if (peer === undefined) return "goal: peer recovery not run";
  const reduction = json.downtime_per_fault_reduction_vs_full ?? Number.NaN;
  return `goal: peer recovery >= 0.98 goodput (${peer >= 0.98 ? "met" : "MISSED"}), >= 80% less downtime per fault than full restart (${reduction >= 0.8 ? "met" : "MISSED"})`;
}

export function report(
  runs: readonly (ModeRun | ModeFailure)[],
  config: GoodputConfig,
  elapsedMs: number,
): void {
  const failed = runs.filter((run): run is ModeFailure => "error" in run);
  const measured = measureRuns(runs.filter((run): run is ModeRun => !("error" in run)));
  const json: Record<string, number> = {
    ...goodputJson(measured, config),
    ...breakdownJson(measured, config),
    ...Object.fromEntries(failed.map((run) => [`failed_${KEY[run.mode]}`, 1])),
    run_s: Math.round(elapsedMs / 1000),
  };
  for (const line of faultLines(measured, config)) process.stderr.write(`${line}\n`);
  const failures = failed.map((run) => `${LABEL[run.mode]}: FAILED: ${run.error.split("\n")[0]}`);
  process.stdout.write(
    `${[...table(measured, config), ...failures, goalLine(json), "", ...breakdownTable(measured, config)].join("\n")}\nBENCH goodput ${JSON.stringify(json)}\n`,
  );
}
