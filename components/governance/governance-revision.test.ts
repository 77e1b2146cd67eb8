import { describe, expect, it } from "vitest";
import { staleQueries } from "./governance-revision";

const base = { audit: "a1", queue: "llm:j1#1//", capacity: "2026-12-07T02:00:00.000Z" };

describe("governance revision", () => {
  it("fetches nothing again on the first revision, or when nothing moved", () => {
    expect(staleQueries(null, base)).toEqual([]);
    expect(staleQueries(base, { ...base })).toEqual([]);
  });

  it("fetches again only the views of the part that moved", () => {
    expect(staleQueries(base, { ...base, audit: "a2" })).toEqual(["audit", "overview", "members"]);
    expect(staleQueries(base, { ...base, queue: "llm://j1" })).toEqual(["queue", "overview", "whyPending"]);
    expect(staleQueries(base, { ...base, capacity: "2026-12-07T02:01:00.000Z" })).toEqual([
      "capacityHistory",
    ]);
    expect(staleQueries(base, { audit: "a2", queue: "x", capacity: base.capacity })).toEqual([
      "audit",
      "overview",
      "members",
      "queue",
      "whyPending",
    ]);
  });
});
