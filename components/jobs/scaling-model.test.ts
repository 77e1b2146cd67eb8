import { describe, expect, it } from "vitest";
import type { ClusterEvent } from "@/server/cluster/types";
import { entriesFromEvents, scalingSummary, sizeSteps } from "./scaling-model";

const ev = (at: number, reason: string, message: string): ClusterEvent => ({
  type: "Normal",
  reason,
  message,
  at,
});

const EVENTS: ClusterEvent[] = [
  ev(1000, "Running", "All 1 pods are running"),
  ev(5000, "Scaling", "Scaling from 1 to 4 replicas: capacity is free"),
  ev(9000, "Scaled", "Scaled from 1 to 4 replicas (1 → 4 replicas in 4.0 s)"),
  ev(20_000, "Scaling", "Scaling from 4 to 2 replicas: higher-priority work needs its capacity"),
  ev(23_000, "Scaled", "Scaled from 4 to 2 replicas (4 → 2 replicas in 3.0 s)"),
  ev(30_000, "Scaling", "Scaling from 2 to 3 replicas: capacity is free"),
  ev(40_000, "ScalingFailed", "Scaling from 2 to 3 replicas failed: pod(s) x were not READY within 30 s"),
  ev(50_000, "Scaling", "Scaling from 2 to 4 replicas: capacity is free"),
];

describe("scaling history from the operator's events", () => {
  it("pairs each Scaling with its end, with reasons", () => {
    expect(entriesFromEvents(EVENTS).map((e) => [e.from, e.to, e.reason, e.outcome])).toEqual([
      [1, 4, "ScaleUp", "Scaled"],
      [4, 2, "Preempted", "Scaled"],
      [2, 3, "ScaleUp", "Failed"],
      [2, 4, "ScaleUp", "InProgress"],
    ]);
  });
  it("target vs actual: a scaling under way targets its new size; the live view wins where there is one", () => {
    expect(scalingSummary({ events: EVENTS })).toMatchObject({ target: 4, actual: 2, min: null });
    const elastic = { targetReplicas: 4, actualReplicas: 4, min: 1, max: 4, why: null };
    expect(scalingSummary({ events: EVENTS, elastic })).toMatchObject({
      target: 4,
      actual: 4,
      min: 1,
      max: 4,
    });
  });
  it("nothing for a job that is not elastic", () => {
    expect(scalingSummary({ events: [EVENTS[0] as ClusterEvent] })).toBeNull();
  });
  it("history rows win over events", () => {
    const rows = [
      {
        fromReplicas: 1,
        toReplicas: 2,
        reason: "ScaleUp",
        outcome: "Scaled",
        message: "",
        startedAt: 7,
        finishedAt: 8,
      },
    ];
    expect(scalingSummary({ events: EVENTS, rows })?.entries).toEqual([
      { at: 7, from: 1, to: 2, reason: "ScaleUp", outcome: "Scaled", message: "" },
    ]);
  });
  it("sizes over time as steps, only completed scalings", () => {
    const entries = entriesFromEvents(EVENTS);
    expect(sizeSteps(entries, { start: 0, now: 60_000, initial: 1 })).toEqual([
      { t: 0, size: 1 },
      { t: 5000, size: 4 },
      { t: 20_000, size: 2 },
      { t: 60_000, size: 2 },
    ]);
  });
});
