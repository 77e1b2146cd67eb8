import { describe, expect, it } from "vitest";
import { sizeInUse } from "./in-use";

describe("sizeInUse", () => {
  it("is minReplicas for a job the operator has not written an elastic status for", () => {
    expect(sizeInUse({}, 2)).toBe(2);
    expect(sizeInUse(undefined, 2)).toBe(2);
    expect(sizeInUse({ rebound: { elastic: null } }, 1)).toBe(1);
  });

  it("is the size the job runs at", () => {
    expect(sizeInUse({ rebound: { elastic: { size: 3, scaling: null } } }, 1)).toBe(3);
  });

  it("is the larger size of a scaling under way, either way", () => {
    expect(sizeInUse({ rebound: { elastic: { size: 2, scaling: { from: 2, to: 4 } } } }, 2)).toBe(4);
    expect(sizeInUse({ rebound: { elastic: { size: 4, scaling: { from: 4, to: 2 } } } }, 2)).toBe(4);
  });

  it("ignores what is not a number", () => {
    expect(sizeInUse({ rebound: { elastic: { size: "4", scaling: { to: null } } } }, 2)).toBe(2);
  });
});
