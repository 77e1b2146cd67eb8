import { describe, expect, it } from "vitest";
import { parseConfig } from "./config";
import { DEFAULT_COSTS } from "./costs";

describe("bench:ettr's flags", () => {
  it("defaults to a 2,048-pod measurement and a 30-day run at the published MTTF", () => {
    const config = parseConfig([]);
    expect(config).toMatchObject({ pods: 2048, faults: 5, days: 30, seed: 1, mttfH: 1.8, measured: null });
    expect(config.costs.checkpointIntervalS).toBe(DEFAULT_COSTS.checkpointIntervalS.value);
  });

  it("takes the checkpoint interval in minutes and a cost by name", () => {
    const config = parseConfig(["--checkpoint-min", "10", "--set", "ncclInitS=90", "--set", "podStartS=0"]);
    expect(config.costs.checkpointIntervalS).toBe(600);
    expect(config.costs.ncclInitS).toBe(90);
    expect(config.costs.podStartS).toBe(0);
  });

  it("refuses an unknown cost and a non-positive MTTF", () => {
    expect(() => parseConfig(["--set", "coffeeS=5"])).toThrow(/--set/);
    expect(() => parseConfig(["--mttf-h", "0"])).toThrow(/--mttf-h/);
  });
});
