import { describe, expect, it } from "vitest";
import type { TimelineEntry } from "@/server/domain/jobs/view-model";
import { faultScope, recoveryText } from "./timeline-text";

const entry: TimelineEntry = {
  id: "a",
  reason: "NodeUnhealthy",
  message: "",
  action: "POD_REPLACEMENT",
  outcome: "pending",
  ranks: [8, 9, 10, 11],
  pods: ["w-1"],
  node: "node-1",
  faultAt: 0,
  detectedAt: 100,
  recoveredAt: null,
  detectionMs: 100,
  recoveryMs: null,
};

describe("timeline text", () => {
  it("describes the scope and the recovery state", () => {
    expect(faultScope(entry)).toBe("ranks 8–11 on node-1 (pod w-1)");
    expect(faultScope({ ...entry, ranks: [], node: null, pods: [] })).toBe("the job");
    expect(faultScope({ ...entry, ranks: [3], pods: ["a", "b", "c", "d"] })).toBe(
      "rank 3 on node-1 (pods a, b, c, …)",
    );
    expect(recoveryText(entry, 3300)).toBe("recovering for 3.2 s");
    expect(recoveryText({ ...entry, outcome: "recovered", recoveryMs: 850 }, 0)).toBe("recovered in 850 ms");
    expect(recoveryText({ ...entry, outcome: "failed" }, 0)).toBe("recovery failed");
  });
});
