import { describe, expect, it } from "vitest";
import { describeChanges, describeDetails } from "./audit-details";

const gpu = (guaranteed: number) => ({
  instanceType: "ml.p5.48xlarge",
  resource: "nvidia.com/gpu",
  guaranteed,
  absoluteBorrowLimit: null,
});

describe("audit details", () => {
  it("says each changed value with its path, a quota's guaranteed GPUs included (16 → 32)", () => {
    expect(
      describeChanges({
        before: { version: 1, borrowLimitPercent: 50, strategy: "Lend", resources: [gpu(16)] },
        after: { version: 2, borrowLimitPercent: 80, strategy: "Lend", resources: [gpu(32)] },
      }),
    ).toEqual([
      "borrowLimitPercent 50 → 80",
      "resources[nvidia.com/gpu on ml.p5.48xlarge].guaranteed 16 → 32",
    ]);
    expect(describeDetails({ before: { version: 1 }, after: { version: 2 } })).toBe("no field changed");
  });

  it("names list elements added and removed, priority classes by name", () => {
    const before = {
      priorityClasses: [
        { name: "training", weight: 10 },
        { name: "batch", weight: 1 },
      ],
    };
    const after = {
      priorityClasses: [
        { name: "training", weight: 20 },
        { name: "urgent", weight: 90 },
      ],
    };
    expect(describeChanges({ before, after })).toEqual([
      "priorityClasses[training].weight 10 → 20",
      "priorityClasses[batch] removed",
      "priorityClasses[urgent] added (weight 90)",
    ]);
  });

  it("walks into nested records and says lists of plain values whole", () => {
    expect(
      describeChanges({
        before: { fairShare: { enabled: true, halfLife: 60 }, teams: ["a", "b"] },
        after: { fairShare: { enabled: true, halfLife: 120 }, teams: ["a", "c"] },
      }),
    ).toEqual(["fairShare.halfLife 60 → 120", "teams a, b → a, c"]);
  });

  it("walks lists of named rules recorded whole as before and after", () => {
    expect(
      describeChanges({
        before: [{ name: "xid-79", action: "drain" }],
        after: [{ name: "xid-79", action: "cordon" }],
      }),
    ).toEqual(["[xid-79].action drain → cordon"]);
  });

  it("reads a single changed value, such as a member's role", () => {
    expect(describeDetails({ user: "viewer@rebound.local", before: "viewer", after: "engineer" })).toBe(
      "viewer@rebound.local: viewer → engineer",
    );
    expect(describeDetails({ user: "viewer@rebound.local", before: "viewer", after: null })).toBe(
      "viewer@rebound.local: viewer → —",
    );
  });

  it("says a created thing by its fields", () => {
    expect(
      describeDetails({ before: null, after: { name: "vision", namespace: "hyperpod-ns-vision" } }),
    ).toBe("created: name vision, namespace hyperpod-ns-vision");
  });

  it("reads older rows without before → after by their own fields", () => {
    expect(describeDetails({ name: "vision", displayName: "Vision" })).toBe(
      "name: vision; displayName: Vision",
    );
    expect(describeDetails({ role: "engineer", previousRole: null })).toBe("role: engineer; previousRole: —");
    expect(describeDetails(null)).toBe("—");
  });
});
