import { describe, expect, it } from "vitest";
import { liveState } from "./use-live-job";

describe("the job page's live indicator", () => {
  it.each([
    ["pending", false, "live"],
    ["pending", true, "live"],
    ["connecting", false, "connecting"],
    ["connecting", true, "reconnecting"],
    ["error", true, "reconnecting"],
    ["idle", true, "reconnecting"],
  ] as const)("stream %s with a page %s → %s", (status, hasPage, shown) => {
    expect(liveState(status, hasPage)).toBe(shown);
  });
});
