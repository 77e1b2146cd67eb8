import { describe, expect, it } from "vitest";
import { stepsOf, thin } from "./capacity-history";

const row = (flavor: string, at: number, used: number, guaranteed = 4) => ({
  flavor,
  at: new Date(at),
  guaranteed,
  used,
  borrowed: Math.max(0, used - guaranteed),
  lent: 0,
});

describe("capacity history points", () => {
  it("sums the flavors' latest values at each change (a flavor holds its value until its next row)", () => {
    const points = stepsOf([row("a", 0, 1), row("b", 0, 2), row("a", 10, 6), row("b", 20, 0)]);
    expect(points).toEqual([
      { at: 0, guaranteed: 8, used: 3, borrowed: 0, lent: 0 },
      { at: 10, guaranteed: 8, used: 8, borrowed: 2, lent: 0 },
      { at: 20, guaranteed: 8, used: 6, borrowed: 2, lent: 0 },
    ]);
  });

  it("keeps at most the asked number of points, the last of each time bucket", () => {
    const many = Array.from({ length: 1000 }, (_, index) => ({
      at: index,
      guaranteed: 1,
      used: index,
      borrowed: 0,
      lent: 0,
    }));
    const kept = thin(many, { from: 0, to: 1000, max: 100 });
    expect(kept).toHaveLength(100);
    expect(kept[0]?.used).toBe(9);
    expect(kept.at(-1)?.used).toBe(999);
    expect(thin(many.slice(0, 5), { from: 0, to: 1000, max: 100 })).toHaveLength(5);
  });
});
