import { describe, expect, it } from "vitest";
import { checkDeadlines, type DeadlinePhase } from "./deadlines";
import { at, SECOND } from "./test-helpers";
import type { RunPolicyInput } from "./types";

const POLICY: RunPolicyInput = {
  startupDeadlineSeconds: 600,
  faultDeadlineSeconds: 300,
  activeDeadlineSeconds: 7200,
};
const NOW = at(100);
const ago = (seconds: number) => NOW - seconds * SECOND;

describe("checkDeadlines", () => {
  it.each<{ phase: DeadlinePhase; phaseAgo: number; startedAgo: number | null; expected: string | null }>([
    { phase: "Created", phaseAgo: 601, startedAgo: 601, expected: "startupDeadlineSeconds" },
    { phase: "Starting", phaseAgo: 601, startedAgo: 601, expected: "startupDeadlineSeconds" },
    { phase: "PodsRunning", phaseAgo: 601, startedAgo: 601, expected: "startupDeadlineSeconds" },
    { phase: "PodsRunning", phaseAgo: 600, startedAgo: 600, expected: null },
    { phase: "Running", phaseAgo: 6000, startedAgo: 7000, expected: null },
    { phase: "Running", phaseAgo: 6000, startedAgo: 7201, expected: "activeDeadlineSeconds" },
    { phase: "Fault", phaseAgo: 301, startedAgo: 1000, expected: "faultDeadlineSeconds" },
    { phase: "Fault", phaseAgo: 300, startedAgo: 1000, expected: null },
    { phase: "Fault", phaseAgo: 301, startedAgo: 7201, expected: "activeDeadlineSeconds" },
    { phase: "Starting", phaseAgo: 10, startedAgo: null, expected: null },
    { phase: "Suspended", phaseAgo: 9000, startedAgo: 9000, expected: null },
    { phase: "Completed", phaseAgo: 9000, startedAgo: 9000, expected: null },
    { phase: "Failed", phaseAgo: 9000, startedAgo: 9000, expected: null },
  ])(
    "$phase for $phaseAgo s, started $startedAgo s ago → $expected",
    ({ phase, phaseAgo, startedAgo, expected }) => {
      const startTime = startedAgo === null ? null : ago(startedAgo);
      const result = checkDeadlines({
        runPolicy: POLICY,
        phase,
        phaseSince: ago(phaseAgo),
        startTime,
        now: NOW,
      });
      expect(result?.deadline ?? null).toBe(expected);
    },
  );

  it("applies no deadline that is unset", () => {
    const result = checkDeadlines({
      runPolicy: {},
      phase: "Fault",
      phaseSince: ago(1e6),
      startTime: ago(1e6),
      now: NOW,
    });
    expect(result).toBeNull();
  });

  it("names the deadline, its limit and the elapsed time", () => {
    const result = checkDeadlines({
      runPolicy: POLICY,
      phase: "Fault",
      phaseSince: ago(301.5),
      startTime: null,
      now: NOW,
    });
    expect(result).toEqual({
      deadline: "faultDeadlineSeconds",
      reason: "faultDeadlineSeconds (300) exceeded: the job has been in Fault for 301 seconds",
      elapsedMs: 301_500,
    });
  });
});
