import { describe, expect, it } from "vitest";
import { pageState } from "./use-live-job";

describe("the job page's live indicator", () => {
  it.each([
    ["live", true, "live"],
    ["unavailable", true, "reconnecting"],
    ["unavailable", false, "connecting"],
    ["reconnecting", true, "reconnecting"],
    ["connecting", false, "connecting"],
  ] as const)("live view %s with a page %s → %s", (status, hasPage, shown) => {
    expect(pageState(status, hasPage)).toBe(shown);
  });
});
