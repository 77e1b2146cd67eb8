import { describe, expect, it } from "vitest";
import { formatAgo, formatDuration, formatLoss, formatNumber, formatPercent, formatRankList } from "./format";

describe("formatDuration", () => {
  it.each<[number | null, string]>([
    [null, "—"],
    [Number.NaN, "—"],
    [0, "0 ms"],
    [850.4, "850 ms"],
    [1234, "1.2 s"],
    [9999, "10 s"],
    [42_500, "42 s"],
    [125_000, "2 min 5 s"],
    [120_000, "2 min"],
    [3_780_000, "1 h 3 min"],
    [187_200_000, "2 d 4 h"],
    [-1500, "−1.5 s"],
  ])("%s → %s", (ms, expected) => {
    expect(formatDuration(ms)).toBe(expected);
  });
});

describe("formatAgo", () => {
  const now = 1_000_000;
  it.each<[number | null, string]>([
    [null, "—"],
    [now - 200, "just now"],
    [now + 5000, "just now"],
    [now - 3400, "3 s ago"],
    [now - 125_000, "2 min ago"],
    [now - 2 * 3_600_000, "2 h ago"],
    [now - 3 * 86_400_000, "3 d ago"],
  ])("%s → %s", (at, expected) => {
    expect(formatAgo(at, now)).toBe(expected);
  });
});

describe("numbers", () => {
  it("formats measurements, keeping NaN and infinities visible", () => {
    expect(formatNumber(1234.5678)).toBe("1,234.57");
    // A column's figures line up: fixed decimals keep "1,237.0" beside "1,208.8".
    expect(formatNumber(1237, 1, true)).toBe("1,237.0");
    expect(formatNumber(1237, 1)).toBe("1,237");
    expect(formatNumber(null)).toBe("—");
    expect(formatNumber(Number.NaN)).toBe("NaN");
    expect(formatNumber(Number.NEGATIVE_INFINITY)).toBe("−∞");
    expect(formatLoss(0.123456)).toBe("0.1235");
    expect(formatLoss(1234.5678)).toBe("1,234.57");
    expect(formatPercent(0.98765)).toBe("98.8%");
    expect(formatPercent(null)).toBe("—");
  });
});

describe("formatRankList", () => {
  it("collapses runs into ranges, dedupes and sorts", () => {
    expect(formatRankList([])).toBe("—");
    expect(formatRankList([10, 9, 7, 3, 2, 1, 0, 3])).toBe("0–3, 7, 9–10");
  });

  it("shortens long lists", () => {
    const scattered = Array.from({ length: 10 }, (_, i) => i * 2);
    expect(formatRankList(scattered, 3)).toBe("0, 2, 4, … (+7 ranks)");
    expect(formatRankList(Array.from({ length: 2048 }, (_, i) => i))).toBe("0–2047");
  });
});
