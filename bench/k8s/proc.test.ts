import { describe, expect, it } from "vitest";
import { sumSamples, watchProcs } from "./proc";

describe("processes sampled as one", () => {
  it("sum CPU time and memory, at the latest sample's time", () => {
    expect(
      sumSamples([
        { at: 1000, cpuS: 1.5, rssMb: 100, hwmMb: 120 },
        null,
        { at: 1010, cpuS: 0.5, rssMb: 50, hwmMb: 60 },
      ]),
    ).toEqual({ at: 1010, cpuS: 2, rssMb: 150, hwmMb: 180 });
    expect(sumSamples([null])).toBeNull();
    expect(sumSamples([])).toBeNull();
  });

  it("read this process twice as twice its memory", () => {
    const one = watchProcs([process.pid]);
    const two = watchProcs([process.pid, process.pid]);
    const a = one.now();
    const b = two.now();
    one.stop();
    two.stop();
    expect(a?.rssMb).toBeGreaterThan(0);
    expect((b?.rssMb ?? 0) / (a?.rssMb ?? 1)).toBeCloseTo(2, 1);
  });
});
