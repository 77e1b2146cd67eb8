import type { GoodputConfig, Mode } from "./config";
import { type Breakdown, faultBreakdown, MILESTONES, meanBreakdown, victimOf } from "./milestones";
import type { Goodput } from "./progress";
import type { ModeRun } from "./run-mode";
import { FAULT_KINDS } from "./schedule";

/**
 * The downtime breakdown of bench:goodput's report: per mode and fault kind, the mean time from the
 * victims' last progress to each recovery milestone (milestones.ts), as a table and as JSON keys
 * `at_<milestone>_s_<kind>_<mode>`.
 */

const HEAD: Record<(typeof MILESTONES)[number], string> = {
  detected: "detected",
  paused: "paused",
  processUp: "proc up",
  ready: "READY",
  started: "/start",
  stateLoaded: "state",
  firstStep: "1st step",
  back: "back",
};

const SHORT: Record<Mode, string> = { full: "full", inplace: "inplace", peer: "peer" };

type Measured = { run: ModeRun; goodput: Goodput };

/** Every fault's breakdown in one mode's run, in injection order. */
export function faultBreakdowns(
  input: Measured & { config: GoodputConfig },
): { kind: string; b: Breakdown }[] {
  const { run, goodput, config } = input;
  const job = `goodput-${run.mode}`;
  return goodput.faults.map((loss, index) => {
    const victims = (run.faults[index]?.victims ?? []).map((rank) =>
      victimOf({ job, rank, ranksPerNode: config.ranksPerNode }),
    );
    const detectedAt = run.detections.find((at) => at >= loss.injectedAt);
    return { kind: loss.kind, b: faultBreakdown({ loss, victims, events: run.events, detectedAt }) };
  });
}

/** Each fault kind's mean breakdown in one mode's run. */
export function kindBreakdowns(
  input: Measured & { config: GoodputConfig },
): Map<string, { faults: number; mean: Breakdown }> {
  const byKind = new Map<string, Breakdown[]>();
  for (const { kind, b } of faultBreakdowns(input)) byKind.set(kind, [...(byKind.get(kind) ?? []), b]);
  return new Map(
    [...byKind].map(([kind, list]) => [kind, { faults: list.length, mean: meanBreakdown(list) }]),
  );
}

const cell = (ms: number | undefined) => (ms === undefined ? "-" : (ms / 1000).toFixed(2)).padStart(9);

/** One line per fault (for stderr): its mode, kind and milestones. */
export function faultLines(measured: readonly Measured[], config: GoodputConfig): string[] {
  return measured.flatMap((m) =>
    faultBreakdowns({ ...m, config }).map(
      ({ kind, b }, index) =>
        `${SHORT[m.run.mode]} fault ${index + 1} ${kind}:${MILESTONES.map((name) => ` ${name} ${cell(b[name]).trim()}`).join("")}`,
    ),
  );
}

export function breakdownTable(measured: readonly Measured[], config: GoodputConfig): string[] {
  const lines = [
    "Where the downtime goes: mean seconds from the victims' last step to each milestone (- : not in this mode)",
    `${"mode".padEnd(8)}${"kind".padEnd(7)}${"n".padStart(3)}${MILESTONES.map((name) => HEAD[name].padStart(9)).join("")}`,
  ];
  for (const m of measured) {
    const kinds = kindBreakdowns({ ...m, config });
    for (const kind of FAULT_KINDS) {
      const found = kinds.get(kind);
      if (found === undefined) continue;
      const cells = MILESTONES.map((name) => cell(found.mean[name])).join("");
      lines.push(
        `${SHORT[m.run.mode].padEnd(8)}${kind.padEnd(7)}${String(found.faults).padStart(3)}${cells}`,
      );
    }
  }
  return lines;
}

export function breakdownJson(measured: readonly Measured[], config: GoodputConfig): Record<string, number> {
  const json: Record<string, number> = {};
  for (const m of measured) {
    for (const [kind, found] of kindBreakdowns({ ...m, config }))
      for (const name of MILESTONES) {
        const ms = found.mean[name];
        if (ms !== undefined) json[`at_${name}_s_${kind}_${SHORT[m.run.mode]}`] = Math.round(ms / 10) / 100;
      }
  }
  return json;
}
