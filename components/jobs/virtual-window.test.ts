import { describe, expect, it } from "vitest";
import { scrollToRow, virtualWindow } from "./virtual-window";

describe("virtualWindow", () => {
  const rowHeight = 30;
  const viewportHeight = 300;

  it("renders the visible rows plus overscan, with spacers for the rest", () => {
    const window = virtualWindow({ scrollTop: 0, viewportHeight, rowHeight, count: 2048, overscan: 5 });
    expect(window).toEqual({ start: 0, end: 16, padTop: 0, padBottom: (2048 - 16) * rowHeight });
    const mid = virtualWindow({ scrollTop: 30_000, viewportHeight, rowHeight, count: 2048, overscan: 5 });
    expect(mid.start).toBe(995);
    expect(mid.end).toBe(1016);
    expect(mid.padTop + (mid.end - mid.start) * rowHeight + mid.padBottom).toBe(2048 * rowHeight);
  });

  it("clamps past the ends and handles short and empty lists", () => {
    const end = virtualWindow({ scrollTop: 1e9, viewportHeight, rowHeight, count: 2048, overscan: 0 });
    expect(end.end).toBe(2048);
    expect(end.padBottom).toBe(0);
    expect(virtualWindow({ scrollTop: -50, viewportHeight, rowHeight, count: 3 })).toEqual({
      start: 0,
      end: 3,
      padTop: 0,
      padBottom: 0,
    });
    expect(virtualWindow({ scrollTop: 0, viewportHeight, rowHeight, count: 0 }).end).toBe(0);
  });
});

describe("scrollToRow", () => {
  const base = { viewportHeight: 300, rowHeight: 30 };
  it("moves as little as needed", () => {
    expect(scrollToRow({ ...base, index: 5, scrollTop: 0 })).toBe(0);
    expect(scrollToRow({ ...base, index: 20, scrollTop: 0 })).toBe(330);
    expect(scrollToRow({ ...base, index: 2, scrollTop: 300 })).toBe(60);
  });
});
