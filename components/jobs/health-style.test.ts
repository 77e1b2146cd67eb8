import { describe, expect, it } from "vitest";
import { RANK_HEALTH } from "@/server/domain/jobs/view-model";
import { countHealth, FALLBACK_COLORS, HEALTH_ORDER, HEALTH_STYLE, healthSummary } from "./health-style";

function luminance(hex: string): number {
  const channels = [1, 3, 5].map((at) => Number.parseInt(hex.slice(at, at + 2), 16) / 255);
  const [r = 0, g = 0, b = 0] = channels.map((c) =>
    c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4,
  );
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return ((hi ?? 0) + 0.05) / ((lo ?? 0) + 0.05);
}

describe("health style", () => {
  it.each(RANK_HEALTH)("%s meets WCAG AA (4.5:1) on the background and on panels", (health) => {
    const { color } = HEALTH_STYLE[health];
    expect(contrast(color, FALLBACK_COLORS.bg)).toBeGreaterThanOrEqual(4.5);
    expect(contrast(color, FALLBACK_COLORS.panel)).toBeGreaterThanOrEqual(4.5);
  });

  it("gives every health a distinct colour and a distinct mark", () => {
    expect(new Set(RANK_HEALTH.map((health) => HEALTH_STYLE[health].color)).size).toBe(RANK_HEALTH.length);
    expect(new Set(RANK_HEALTH.map((health) => HEALTH_STYLE[health].mark)).size).toBe(RANK_HEALTH.length);
    expect([...HEALTH_ORDER].sort()).toEqual([...RANK_HEALTH].sort());
  });

  it("counts and summarises", () => {
    const counts = countHealth([{ health: "healthy" }, { health: "faulted" }, { health: "healthy" }]);
    expect(counts).toMatchObject({ healthy: 2, faulted: 1, waiting: 0 });
    expect(healthSummary(counts, 3)).toBe("3 ranks: 1 faulted, 2 healthy");
    expect(healthSummary(countHealth([]), 0)).toBe("0 ranks");
  });
});
