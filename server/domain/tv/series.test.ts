import { describe, expect, it } from "vitest";
import { frameChange } from "./diff";
import { thinPoints } from "./series";

describe("thinPoints", () => {
  it("keeps short series whole, minus non-finite points", () => {
    expect(
      thinPoints([
        { t: 1, value: 1 },
        { t: 2, value: Number.NaN },
        { t: 3, value: 3 },
      ]),
    ).toEqual([
      { t: 1, value: 1 },
      { t: 3, value: 3 },
    ]);
  });

  it("caps long series and always keeps the newest point", () => {
    const points = Array.from({ length: 1000 }, (_, t) => ({ t, value: t }));
    const thin = thinPoints(points, 120);
    expect(thin.length).toBeLessThanOrEqual(120);
    expect(thin.at(-1)).toEqual({ t: 999, value: 999 });
    expect(thin.map((point) => point.t)).toEqual([...thin.map((point) => point.t)].sort((a, b) => a - b));
  });
});

describe("frameChange", () => {
  const frame = { view: "cluster", generatedAt: 1, counts: { running: 1 } };
  it("sends nothing when only the time moved", () => {
    expect(frameChange(frame, { ...frame, generatedAt: 2 })).toBeNull();
  });
  it("sends the whole new frame when anything else changed", () => {
    const next = { ...frame, generatedAt: 2, counts: { running: 2 } };
    expect(frameChange(frame, next)).toBe(next);
  });
});
