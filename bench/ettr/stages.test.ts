import { describe, expect, it } from "vitest";
import { parseStageTotals, stageDelta } from "./stages";

const metrics = (plrStopping: [number, number], podStarting: [number, number]) =>
  [
    "# HELP rebound_operator_restart_stage_seconds Where a restart's time goes",
    `rebound_operator_restart_stage_seconds_bucket{le="0.5",restart_type="PLR",stage="stopping"} 1`,
    `rebound_operator_restart_stage_seconds_sum{restart_type="PLR",stage="stopping"} ${plrStopping[0]}`,
    `rebound_operator_restart_stage_seconds_count{restart_type="PLR",stage="stopping"} ${plrStopping[1]}`,
    `rebound_operator_restart_stage_seconds_sum{stage="starting",restart_type="POD_REPLACEMENT"} ${podStarting[0]}`,
    `rebound_operator_restart_stage_seconds_count{stage="starting",restart_type="POD_REPLACEMENT"} ${podStarting[1]}`,
    "rebound_operator_reconcile_duration_seconds_sum 12.5",
  ].join("\n");

describe("the restart stage metric, per fault", () => {
  it("reads each type and stage whatever the label order", () => {
    const totals = parseStageTotals(metrics([1.5, 2], [0.25, 1]));
    expect(totals.get("PLR/stopping")).toEqual({ seconds: 1.5, count: 2 });
    expect(totals.get("POD_REPLACEMENT/starting")).toEqual({ seconds: 0.25, count: 1 });
    expect(totals.size).toBe(2);
  });

  it("gives one fault's stages as the difference, leaving out those it did not pass", () => {
    const before = parseStageTotals(metrics([1.5, 2], [0.25, 1]));
    const after = parseStageTotals(metrics([2.25, 3], [0.25, 1]));
    expect(stageDelta(before, after)).toEqual({ "PLR/stopping": 750 });
  });
});
