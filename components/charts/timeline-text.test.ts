import { describe, expect, it } from "vitest";
import type { TimelineEntry } from "@/server/domain/jobs/view-model";
import { entrySentence, faultCause, faultScope, lossText, recoveryText } from "./timeline-text";

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
    // An agent that named no rank (hyperpodrun's log rules): the pod, not ranks that may not have failed.
    expect(faultScope({ ...entry, ranks: [] })).toBe("pod w-1 on node-1");
    expect(faultScope({ ...entry, ranks: [], node: null, pods: ["a", "b", "c", "d"] })).toBe(
      "pods a, b, c, …",
    );
    expect(faultScope({ ...entry, ranks: [3], pods: ["a", "b", "c", "d"] })).toBe(
      "rank 3 on node-1 (pods a, b, c, …)",
    );
    expect(recoveryText(entry, 3300)).toBe("recovering for 3.2 s");
    expect(recoveryText({ ...entry, outcome: "recovered", recoveryMs: 850 }, 0)).toBe("recovered in 850 ms");
    expect(recoveryText({ ...entry, outcome: "failed" }, 0)).toBe("recovery failed");
  });

  it("says what each fault cost the training", () => {
    const base = { start: 0, end: 4200, open: false, lostMs: 4200 };
    expect(lossText({ ...base, basis: "progress", lostSteps: 3 })).toBe("lost 4.2 s and 3 steps");
    expect(lossText({ ...base, basis: "progress", lostSteps: 1 })).toBe("lost 4.2 s and 1 step");
    expect(lossText({ ...base, basis: "progress", lostSteps: 0 })).toBe("lost 4.2 s, no step lost");
    expect(lossText({ ...base, basis: "progress", lostSteps: null, open: true })).toBe(
      "training not back for 4.2 s",
    );
    expect(lossText({ ...base, basis: "control-plane", lostSteps: null })).toBe(
      "lost 4.2 s (control-plane time: no training progress recorded)",
    );
    const recovered = { ...entry, outcome: "recovered" as const, recoveryMs: 850 };
    expect(entrySentence(recovered, 0, { ...base, basis: "progress", lostSteps: 3 })).toMatch(
      /detected in 100 ms, recovered in 850 ms; lost 4\.2 s and 3 steps\.$/,
    );
  });

  it("names a node fault's signal source and reason; HyperPod's label stays the plain NodeFault", () => {
    const node = { ...entry, reason: "NodeFault" };
    const reason = "EKS: AcceleratedHardwareReady=False (NvidiaXID79Error) — GPU has fallen off the bus";
    expect(faultCause({ ...node, message: `Found unhealthy node node-1 (${reason})` })).toBe(
      `NodeFault (${reason})`,
    );
    expect(
      faultCause({
        ...node,
        message: `Found unhealthy node node-1 (${reason}); back-off 4 s before starting again (3 restarts in a row without progress)`,
      }),
    ).toBe(`NodeFault (${reason})`);
    const recovered = `The fault of reason NodeFault was remediated in 900 milliseconds. Found unhealthy node node-1 (${reason})`;
    expect(faultCause({ ...node, message: recovered })).toBe(`NodeFault (${reason})`);
    expect(faultCause({ ...node, message: "Found unhealthy node node-1" })).toBe("NodeFault");
    expect(
      faultCause({ ...node, message: "The fault of reason NodeFault was remediated in 900 milliseconds." }),
    ).toBe("NodeFault");
    expect(faultCause({ ...entry, message: "Found unhealthy node node-1 (x)" })).toBe("NodeUnhealthy");
    expect(
      entrySentence({ ...node, message: "Found unhealthy node node-1 (NVSentinel: GpuMemWatch — Xid)" }, 0),
    ).toMatch(/: NodeFault \(NVSentinel: GpuMemWatch — Xid\) in ranks 8–11 on node-1/);
  });
});
