import { describe, expect, it } from "vitest";
import { describeDetails } from "./audit-details";

describe("audit details", () => {
  it("lists what changed between before and after, leaving out the version", () => {
    expect(
      describeDetails({
        before: { version: 1, borrowLimitPercent: 50, strategy: "Lend", resources: [{ guaranteed: 16 }] },
        after: { version: 2, borrowLimitPercent: 80, strategy: "Lend", resources: [{ guaranteed: 12 }] },
      }),
    ).toBe("borrowLimitPercent 50 → 80; resources changed");
    expect(describeDetails({ before: { version: 1 }, after: { version: 2 } })).toBe("no field changed");
  });

  it("reads a single changed value, such as a member's role", () => {
    expect(describeDetails({ user: "viewer@rebound.local", before: "viewer", after: "engineer" })).toBe(
      "viewer@rebound.local: viewer → engineer",
    );
    expect(describeDetails({ before: null, after: "engineer" })).toBe("— → engineer");
  });

  it("falls back to the details' own fields", () => {
    expect(describeDetails({ role: "engineer", previousRole: null })).toBe("role: engineer; previousRole: —");
    expect(describeDetails(null)).toBe("—");
  });
});
