import { round, summarize } from "../recovery/stats";
import { LLAMA3_CAUSES, pathFractions } from "./causes";
import { DEFAULT_COSTS, MODE_LABELS, MODES, type TrainerCosts } from "./costs";
import type { ControlPlaneFault } from "./measure";
import { LOSS_KINDS, type LossKind, type SimulationResult } from "./simulate";

/**
 * bench:ettr's output: the measured control-plane table (when measured in this run), the simulated ETTR per
 * recovery mode with where the lost time went, the `BENCH ettr {json}` line, then every assumption with its
 * value and source.
 */
export const TARGET_PEER_ETTR = 0.98;
export const TARGET_CONTROL_PLANE_SHARE = 0.001;
const SIMULATED_RANKS = 16_384;

/** The measured samples the simulation resamples, ms, by recovery path; and how they were measured. */
export type Measured = {
  pods: number;
  ranksPerPod: number;
  replaceMs: number[];
  inplaceMs: number[];
  /** Full restarts (every pod recreated); empty: not measured. */
  fullMs: number[];
  /** This run's faults (none when the samples came from --measured). */
  faults: ControlPlaneFault[];
  source: string;
};

export type Simulated = {
  days: number;
  mttfH: number;
  seed: number;
  costs: TrainerCosts;
  results: SimulationResult[];
};

const LOSS_LABELS: Record<LossKind, string> = {
  controlPlane: "control plane",
  processStart: "process start",
  ncclInit: "NCCL init",
  stateLoad: "state load",
  lostSteps: "lost steps",
};

const KIND_LABELS: Record<ControlPlaneFault["kind"], string> = {
  node: "node fault → pod replaced",
  rank: "rank crash → in place",
  job: "full restart (restart-job) → every pod recreated",
};

const pct = (share: number, digits = 2) => `${(share * 100).toFixed(digits)} %`;
const ms = (value: number | null) =>
  value === null || !Number.isFinite(value) ? "—" : `${Math.round(value)}`;
const pad = (text: string, width: number) => text.padStart(width);

function measuredRows(kind: ControlPlaneFault["kind"], faults: ControlPlaneFault[]): string[] {
  const mine = faults.filter((fault) => fault.kind === kind);
  if (mine.length === 0) return [];
  const fields: [string, (fault: ControlPlaneFault) => number | null][] = [
    ["detected", (f) => f.detectedMs],
    ["decision saved", (f) => f.decidedMs],
    ["replacement pod", (f) => f.replacementMs],
    ["every rank stepping", (f) => f.steppingMs],
    ["Running again", (f) => f.runningMs],
  ];
  const label = KIND_LABELS[kind];
  return [
    `  ${label} (${mine.length}; ${[...new Set(mine.map((f) => f.action))].join(", ")})`,
    ...fields.map(([name, pick]) => {
      const values = mine.map(pick).filter((v): v is number => v !== null && Number.isFinite(v));
      if (values.length === 0) return `    ${name.padEnd(22)} —`;
      const s = summarize(values);
      return `    ${name.padEnd(22)} p50 ${pad(ms(s.p50), 6)}  p99 ${pad(ms(s.p99), 6)}  max ${pad(ms(s.max), 6)} ms`;
    }),
    `    ${"stages (mean)".padEnd(22)} ${stageMeans(mine)}`,
  ];
}

function stageMeans(faults: ControlPlaneFault[]): string {
  const sums = new Map<string, number[]>();
  for (const fault of faults)
    for (const [key, value] of Object.entries(fault.stages)) sums.set(key, [...(sums.get(key) ?? []), value]);
  if (sums.size === 0) return "—";
  return [...sums.entries()]
    .map(([key, values]) => `${key} ${Math.round(values.reduce((a, b) => a + b, 0) / values.length)} ms`)
    .join(", ");
}

export function measuredTable(measured: Measured): string[] {
  const ranks = measured.pods * measured.ranksPerPod;
  const small =
    ranks < SIMULATED_RANKS
      ? "; fewer ranks than the simulated job's 16,384: its times understate that job's"
      : "";
  const head = `Control plane, measured: ${measured.pods} pods × ${measured.ranksPerPod} = ${ranks.toLocaleString("en-US")} ranks (${measured.source}${small}); ms after the fault was written`;
  if (measured.faults.length === 0)
    return [
      head,
      `  samples: pod replaced ${measured.replaceMs.join(", ")} ms; in place ${measured.inplaceMs.join(", ")} ms`,
    ];
  const perFault = measured.faults.map(
    (f) =>
      `    ${f.kind.padEnd(5)} ${f.node.padEnd(16)} ${f.action.padEnd(16)} detected ${pad(ms(f.detectedMs), 5)}  decision ${pad(ms(f.decidedMs), 5)}  replaced ${pad(ms(f.replacementMs), 5)}  stepping ${pad(ms(f.steppingMs), 6)}  Running ${pad(ms(f.runningMs), 6)}  (${f.restartedPods}/${f.answeredPods} pods restarted)`,
  );
  return [
    head,
    ...measuredRows("node", measured.faults),
    ...measuredRows("rank", measured.faults),
    ...measuredRows("job", measured.faults),
    "  per fault:",
    ...perFault,
  ];
}

export function simulationTable(sim: Simulated): string[] {
  const first = sim.results[0];
  const hours = (s: number) => (s / 3600).toFixed(2);
  const heads = [
    "ETTR",
    "faults",
    ...LOSS_KINDS.map((kind) => LOSS_LABELS[kind]),
    "lost, all",
    "control plane",
  ];
  const widths = [9, 8, ...LOSS_KINDS.map(() => 18), 18, 15];
  const lines = [
    `ETTR of a ${sim.days}-day run of a 16,384-rank job: MTTF ${sim.mttfH} h of training, seed ${sim.seed} (in the first mode: ${first?.byPath.replace ?? 0} pod replacements, ${first?.byPath.inplace ?? 0} in place); lost time in hours (share of the run); control plane: its share of the lost time`,
    `${"mode".padEnd(30)}${heads.map((h, i) => pad(h, widths[i] ?? 12)).join("")}`,
  ];
  for (const result of sim.results) {
    const lostAll = LOSS_KINDS.reduce((sum, kind) => sum + result.lost[kind], 0);
    const cells = [
      pct(result.ettr),
      String(result.faults),
      ...LOSS_KINDS.map(
        (kind) => `${hours(result.lost[kind])} (${pct(result.lost[kind] / result.wallS, 3)})`,
      ),
      `${hours(lostAll)} (${pct(lostAll / result.wallS)})`,
      lostAll > 0 ? pct(result.lost.controlPlane / lostAll) : "—",
    ];
    lines.push(
      `${MODE_LABELS[result.mode].padEnd(30)}${cells.map((c, i) => pad(c, widths[i] ?? 12)).join("")}`,
    );
  }
  return lines;
}

export function targetLines(sim: Simulated): string[] {
  const peer = sim.results.find((result) => result.mode === "peer");
  if (!peer) return [];
  const share = peer.lost.controlPlane / peer.wallS;
  const verdict = (met: boolean) => (met ? "met" : "MISSED");
  return [
    `target: ETTR ≥ ${pct(TARGET_PEER_ETTR, 0)} with peer recovery: ${pct(peer.ettr)} (${verdict(peer.ettr >= TARGET_PEER_ETTR)})`,
    `target: control plane < ${pct(TARGET_CONTROL_PLANE_SHARE, 1)} of the run: ${pct(share, 3)} with peer recovery (${verdict(share < TARGET_CONTROL_PLANE_SHARE)})`,
  ];
}

const rounded = (record: Record<string, number>) =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, round(value)]));

export function benchJson(measured: Measured, sim: Simulated) {
  const summary = (values: number[]) => rounded(summarize(values));
  return {
    pods: measured.pods,
    ranks: measured.pods * measured.ranksPerPod,
    measured_from: measured.source,
    control_plane_ms: {
      replace: summary(measured.replaceMs),
      inplace: summary(measured.inplaceMs),
      full: summary(measured.fullMs),
    },
    samples_ms: {
      replace: measured.replaceMs.map(Math.round),
      inplace: measured.inplaceMs.map(Math.round),
      full: measured.fullMs.map(Math.round),
    },
    faults: measured.faults.map((fault) => ({
      kind: fault.kind,
      action: fault.action,
      detected: round(fault.detectedMs),
      decided: round(fault.decidedMs),
      replacement: fault.replacementMs === null ? null : round(fault.replacementMs),
      stepping: round(fault.steppingMs),
      running: round(fault.runningMs),
      stages: fault.stages,
    })),
    simulation: {
      days: sim.days,
      mttf_h: sim.mttfH,
      seed: sim.seed,
      faults: sim.results[0]?.faults ?? 0,
      by_path: sim.results[0]?.byPath ?? {},
      ...Object.fromEntries(
        sim.results.map((result) => [
          result.mode,
          {
            ettr: Number(result.ettr.toFixed(5)),
            lost_h: Object.fromEntries(
              LOSS_KINDS.map((kind) => [kind, Number((result.lost[kind] / 3600).toFixed(3))]),
            ),
            control_plane_share: Number((result.lost.controlPlane / result.wallS).toFixed(6)),
          },
        ]),
      ),
    },
    costs_s: sim.costs,
  };
}

export function assumptionLines(sim: Simulated, measured: Measured): string[] {
  const fullSamples =
    measured.fullMs.length > 0
      ? "a full restart takes the measured full restarts' samples (every pod recreated; no detection in them, which is ~10 ms)"
      : "a full restart takes the pod-replacement samples (none of a full restart measured: one node's pods recreated, a lower bound for every pod)";
  const shares = pathFractions(LLAMA3_CAUSES);
  const costLines = (Object.keys(DEFAULT_COSTS) as (keyof TrainerCosts)[]).map((name) => {
    const changed = sim.costs[name] !== DEFAULT_COSTS[name].value ? " (set for this run; default below)" : "";
    return `  ${name} = ${Number(sim.costs[name].toPrecision(4))} s${changed}: ${DEFAULT_COSTS[name].source}`;
  });
  return [
    "Assumptions (parameter = value: source):",
    `  MTTF = ${sim.mttfH} h: Kokolis et al. 2024, arXiv:2410.21680, projected job MTTF at 16,384 GPUs (7.9 h at 1,024, ~14 min at 131,072); Llama 3 saw 3.1 h (419 in 54 days)`,
    `  fault mix: Llama 3 (Dubey et al. 2024, arXiv:2407.21783) Table 5, its counts of 419 as weights; ${pct(shares.replace, 1)} go to a pod replacement (GPU, memory, host, NIC, network, host maintenance), ${pct(shares.inplace, 1)} in place (software bug, dependency, NCCL watchdog)`,
    "  faults: a Poisson process over the time the job trains; each mode meets the same faults (same seed)",
    `  control plane: per fault, a measured fault → every rank stepping again of its path, resampled with replacement; ${fullSamples}`,
    ...costLines,
    "  modes: full = every fault restarts every pod from the checkpoint; in place = Rebound's recovery (pod replaced for a node fault, ranks restarted in place otherwise) from the checkpoint; peer = the same, state copied from a peer's memory, only the step in progress lost",
    "  not counted: the time before a fault is a signal (a health check's detection; an NCCL watchdog's timeout, 1.7 % of faults), checkpoint writes (the same in every mode), waiting for a spare node (one is assumed ready)",
    `  modes simulated: ${MODES.join(", ")}`,
  ];
}
