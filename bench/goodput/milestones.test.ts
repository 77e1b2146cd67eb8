import { describe, expect, it } from "vitest";
import { faultBreakdown, type LogEvent, meanBreakdown, parseLogEvent, victimOf } from "./milestones";
import type { FaultLoss } from "./progress";

const FILE = "/data/pods/ns/goodput-peer/uid-1/goodput-peer-workers-1/agent.log";

describe("parseLogEvent", () => {
  it("reads the trainer's teed lines with their own time, else the time they were read", () => {
    expect(
      parseLogEvent("[default4]:training started (in-process restart) local_rank=4 at=1764321175515", {
        readAt: 9,
        file: FILE,
      }),
    ).toEqual({ at: 1764321175515, pod: "goodput-peer-workers-1", localRank: 4, kind: "processUp" });
    expect(
      parseLogEvent("[default2]:state from peer rank=52 step=566 weights=51.75 rank=10", {
        readAt: 9,
        file: FILE,
      }),
    ).toEqual({ at: 9, pod: "goodput-peer-workers-1", localRank: 2, kind: "stateLoaded" });
    expect(
      parseLogEvent("[default2]:resuming from checkpoint at step 50", { readAt: 9, file: FILE })?.kind,
    ).toBe("stateLoaded");
    expect(
      parseLogEvent("[default2]:step=5 loss=1.0 throughput=1.0 samples/s rank=10", { readAt: 9, file: FILE }),
    ).toBeNull();
  });

  it("reads the agent's JSON lines with their time: READY after start-up or a pause, /start", () => {
    const json = (fields: Record<string, unknown>) =>
      JSON.stringify({
        level: "info",
        time: "2026-11-28T09:12:55.668Z",
        service: "rebound-agent",
        ...fields,
      });
    const at = Date.parse("2026-11-28T09:12:55.668Z");
    const read = (line: string) => parseLogEvent(line, { readAt: 9, file: FILE });
    expect(read(json({ msg: "all local ranks at the barrier", after: "pause" }))).toEqual({
      at,
      pod: "goodput-peer-workers-1",
      localRank: null,
      kind: "paused",
    });
    expect(read(json({ msg: "all local ranks at the barrier", after: "start-up" }))?.kind).toBe("ready");
    expect(read(json({ msg: "start", rank: 1 }))?.kind).toBe("started");
    expect(read(json({ msg: "request", path: "/start" }))).toBeNull();
    expect(read("{not json")).toBeNull();
  });
});

describe("faultBreakdown", () => {
  const loss: FaultLoss = {
    kind: "crash",
    injectedAt: 1000,
    progressStep: 10,
    progressAt: 950,
    resumeStep: 10,
    resumedAt: 2500,
    firstStepAt: 2600,
    lostMs: 1550,
    lostSteps: 0,
  };
  const event = (
    at: number,
    kind: LogEvent["kind"],
    pod: string,
    localRank: number | null = null,
  ): LogEvent => ({
    at,
    kind,
    pod,
    localRank,
  });

  it("times each milestone on the victim from its last progress; the pause is the other pods' latest", () => {
    const victim = victimOf({ job: "goodput-peer", rank: 11, ranksPerNode: 8 });
    expect(victim).toEqual({ pod: "goodput-peer-workers-1", localRank: 3 });
    const events = [
      event(500, "processUp", "goodput-peer-workers-1", 3), // before the fault: not this one
      event(1200, "paused", "goodput-peer-workers-0"),
      event(1300, "paused", "goodput-peer-workers-2"),
      event(1400, "processUp", "goodput-peer-workers-1", 2), // another local rank
      event(1450, "processUp", "goodput-peer-workers-1", 3),
      event(1700, "ready", "goodput-peer-workers-1"),
      event(1800, "started", "goodput-peer-workers-1"),
      event(1900, "stateLoaded", "goodput-peer-workers-1", 3),
    ];
    expect(faultBreakdown({ loss, victims: [victim], events, detectedAt: 1050 })).toEqual({
      detected: 100,
      paused: 350,
      processUp: 500,
      ready: 750,
      started: 850,
      stateLoaded: 950,
      firstStep: 1650,
      back: 1550,
    });
  });

  it("takes the victim pod's READY after a pause too (a rank restarted alone), and its pause is not the others'", () => {
    const victim = victimOf({ job: "goodput-peer", rank: 11, ranksPerNode: 8 });
    const events = [
      event(1200, "paused", "goodput-peer-workers-0"),
      event(1450, "processUp", "goodput-peer-workers-1", 3),
      event(1600, "paused", "goodput-peer-workers-1"),
      event(1700, "started", "goodput-peer-workers-1"),
    ];
    expect(faultBreakdown({ loss, victims: [victim], events, detectedAt: 1050 })).toMatchObject({
      paused: 250,
      processUp: 500,
      ready: 650,
      started: 750,
    });
  });

  it("leaves out what a mode does not do, and averages what it does", () => {
    const victim = victimOf({ job: "goodput-full", rank: 0, ranksPerNode: 8 });
    const b = faultBreakdown({ loss, victims: [victim], events: [], detectedAt: undefined });
    expect(b).toEqual({ firstStep: 1650, back: 1550 });
    expect(meanBreakdown([b, { firstStep: 350, detected: 10 }])).toEqual({
      detected: 10,
      firstStep: 1000,
      back: 1550,
    });
  });
});
