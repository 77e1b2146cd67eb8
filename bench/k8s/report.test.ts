import { describe, expect, it } from "vitest";
import { backOffMs } from "./report";

describe("a restart's crash-loop back-off, from its row's message", () => {
  it("reads the seconds the operator waited before starting again", () => {
    expect(
      backOffMs(
        "Node kwok-node-128 is UnschedulablePendingReboot: replacing pod bench-k8s-workers-3; back-off 20 s before starting again (2 restarts in a row without progress)",
      ),
    ).toBe(20_000);
  });

  it("is 0 for a restart that started at once", () => {
    expect(
      backOffMs("Node kwok-node-087 is UnschedulablePendingReboot: replacing pod bench-k8s-workers-9"),
    ).toBe(0);
  });
});
