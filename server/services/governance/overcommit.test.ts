import { describe, expect, it } from "vitest";
import { AppError } from "@/server/errors";
import { assertFits, gpusOfNodes, guaranteedGpus, overcommitOf } from "./overcommit";

const node = (gpus: number, health = "Schedulable") => ({
  name: "n",
  health,
  ready: true,
  gpus,
  changedAt: 0,
});

describe("over-commit of guaranteed GPUs", () => {
  it("counts every node's GPUs, an unhealthy one too (a guarantee outlives a repair)", () => {
    expect(gpusOfNodes([node(8), node(8), node(16, "UnschedulablePendingReboot")])).toBe(32);
    expect(gpusOfNodes([])).toBe(0);
  });

  it("counts a quota's GPUs over every instance type, and a disabled quota as 0", () => {
    const resources = [
      { resource: "nvidia.com/gpu", guaranteed: 4 },
      { resource: "nvidia.com/gpu", guaranteed: 2 },
      { resource: "cpu", guaranteed: 96 },
    ];
    expect(guaranteedGpus({ active: true, resources })).toBe(6);
    expect(guaranteedGpus({ active: false, resources })).toBe(0);
    expect(guaranteedGpus(null)).toBe(0);
  });

  it("judges only a raise, against what the others are guaranteed and the cluster has", () => {
    const base = { team: "vision", others: 24, capacity: 32 };
    expect(overcommitOf({ ...base, before: 8, asked: 8 })).toBeNull();
    expect(overcommitOf({ ...base, before: 8, asked: 1000 })?.atMost).toBe(8);
    expect(overcommitOf({ ...base, before: 4, asked: 8 })).toBeNull();
    // Already over (nodes removed since): lowering, or keeping, is never refused.
    expect(overcommitOf({ ...base, capacity: 2, before: 8, asked: 3 })).toBeNull();
    expect(overcommitOf({ ...base, others: 40, before: 0, asked: 1 })?.atMost).toBe(0);
  });

  it("refuses naming the team, the asked value and the capacity, unless over-commit is chosen", () => {
    const args = {
      team: "vision",
      before: 8,
      asked: 1000,
      others: 16,
      capacity: { ok: true as const, gpus: 32 },
    };
    const error = (() => {
      try {
        assertFits({ ...args, allowOvercommit: false });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("INVALID");
    expect((error as AppError).message).toBe(
      "vision: guaranteed nvidia.com/gpu 1000 would over-commit the cluster: the other teams are guaranteed 16 " +
        "and the cluster has 32, so at most 16 fits; lower it, or allow over-commit (guarantees then promise " +
        "more than the cluster can give at once)",
    );
    expect(() => assertFits({ ...args, allowOvercommit: true })).not.toThrow();
    const unread = { ...args, capacity: { ok: false as const, reason: "no route" }, allowOvercommit: false };
    expect(() => assertFits(unread)).toThrow(
      /cannot be checked against the cluster's capacity \(.*no route\)/,
    );
    expect(() => assertFits({ ...unread, asked: 8 })).not.toThrow();
  });
});
