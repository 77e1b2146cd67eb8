import { describe, expect, it } from "vitest";
import { remediatedMessage, remediationLatency } from "./remediation";

describe("remediatedMessage", () => {
  it("matches the HyperPod Running-condition message exactly", () => {
    expect(remediatedMessage("NodeFault", 94283)).toBe(
      "The fault of reason NodeFault was remediated in 94283 milliseconds.",
    );
  });

  it("writes whole, non-negative milliseconds", () => {
    expect(remediatedMessage("LogHang_JobHangingDetection", 1500.6)).toBe(
      "The fault of reason LogHang_JobHangingDetection was remediated in 1501 milliseconds.",
    );
    expect(remediatedMessage("WorkerCrash", -3)).toBe(
      "The fault of reason WorkerCrash was remediated in 0 milliseconds.",
    );
  });
});

describe("remediationLatency", () => {
  it("splits detection and recovery", () => {
    expect(remediationLatency({ faultAt: 1_000, detectedAt: 6_000, recoveredAt: 156_000 })).toEqual({
      detectionMs: 5_000,
      recoveryMs: 150_000,
      totalMs: 155_000,
    });
  });

  it("clamps clock skew to zero", () => {
    expect(remediationLatency({ faultAt: 6_000, detectedAt: 5_000, recoveredAt: 9_000 })).toEqual({
      detectionMs: 0,
      recoveryMs: 4_000,
      totalMs: 3_000,
    });
  });
});
