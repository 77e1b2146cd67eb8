import { describe, expect, it } from "vitest";
import { atBottom, rankLogDownloadHref, searchLog, splitHits } from "./rank-log-model";

const lines = ["step=1 loss=2.30", "NCCL WARN timeout", "step=2 loss=nan", "nccl ok (a.*b)"].map((text) => ({
  text,
  matches: [] as string[],
}));

describe("the rank log's search", () => {
  it("keeps the lines containing the text, whatever its case, and marks each occurrence", () => {
    const shown = searchLog(lines, "  nccl ");
    expect(shown.map((entry) => entry.index)).toEqual([1, 3]);
    expect(shown[0]?.segments).toEqual([
      { text: "NCCL", hit: true },
      { text: " WARN timeout", hit: false },
    ]);
    expect(splitHits("a-ab-ab", "ab")).toEqual([
      { text: "a-", hit: false },
      { text: "ab", hit: true },
      { text: "-", hit: false },
      { text: "ab", hit: true },
    ]);
  });

  it("takes the text literally: regular-expression characters are plain characters", () => {
    expect(searchLog(lines, "a.*b").map((entry) => entry.index)).toEqual([3]);
    expect(searchLog(lines, "(").map((entry) => entry.index)).toEqual([3]);
    expect(searchLog(lines, "step=.")).toEqual([]);
  });

  it("shows every line, unmarked, for an empty or blank query", () => {
    const shown = searchLog(lines, "   ");
    expect(shown).toHaveLength(4);
    expect(shown[2]?.segments).toEqual([{ text: "step=2 loss=nan", hit: false }]);
  });

  it("matches a line whose lower case changes its length as one hit", () => {
    expect(splitHits("İstanbul", "stan")).toEqual([{ text: "İstanbul", hit: true }]);
  });
});

describe("following the newest line", () => {
  it("follows at the bottom (within a few px) and stops once scrolled up", () => {
    expect(atBottom({ scrollTop: 680, clientHeight: 320, scrollHeight: 1000 })).toBe(true);
    expect(atBottom({ scrollTop: 675, clientHeight: 320, scrollHeight: 1000 })).toBe(true);
    expect(atBottom({ scrollTop: 600, clientHeight: 320, scrollHeight: 1000 })).toBe(false);
    expect(atBottom({ scrollTop: 0, clientHeight: 320, scrollHeight: 100 })).toBe(true);
  });

  it("downloads the whole log from the job's log route", () => {
    expect(rankLogDownloadHref({ namespace: "team-a", name: "llm" }, 5)).toBe(
      "/api/jobs/team-a/llm/log?rank=5",
    );
  });
});
