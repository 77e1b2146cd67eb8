import { describe, expect, it } from "vitest";
import { agentFaultRanks } from "./agent-fault-ranks";

/** hyperpod-elastic-agent 1.1.3's WorkerCrash message, one line per failed local rank. */
const crashed = (...lines: string[]) =>
  `A training worker process has crashed:\n${lines.map((line) => `    ${line}\n`).join("")}`;

describe("agentFaultRanks (the unchanged agent's reason and message)", () => {
  it("reads the one local rank of a WorkerCrash", () => {
    const message = crashed(
      "Local Rank 1 exited with code -9 due to: Signal 9 (SIGKILL) received by PID 4242",
    );
    expect(agentFaultRanks({ reason: "WorkerCrash", message })).toEqual({ kind: "local", ranks: [1] });
  });

  it("reads several local ranks, in order and once each, whatever their messages say", () => {
    const message = crashed(
      "Local Rank 3 exited with code 1 due to: To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
      "Local Rank 0 exited with code -768 due to: Signal 768 (SIGNAL 768) received by PID 7",
      "Local Rank 3 exited with code 1 due to: again",
    );
    expect(agentFaultRanks({ reason: "WorkerCrash", message })).toEqual({ kind: "local", ranks: [0, 3] });
    const unhealthy = message.replace("has crashed", "entered into an unhealthy state");
    expect(agentFaultRanks({ reason: "WorkerUnhealthy", message: unhealthy })).toEqual({
      kind: "local",
      ranks: [0, 3],
    });
  });

  it("does not read a rank out of a failure's own text, only from the agent's lines", () => {
    const message = crashed(
      "Local Rank 2 exited with code 1 due to: Local Rank 7 exited with code 1 due to: x",
    );
    expect(agentFaultRanks({ reason: "WorkerCrash", message })).toEqual({ kind: "local", ranks: [2] });
  });

  it("reads the global ranks of an in-process WorkerReportedFault", () => {
    const message = "The processes reported a failure on ranks 5, 12";
    expect(agentFaultRanks({ reason: "WorkerReportedFault", message })).toEqual({
      kind: "global",
      ranks: [5, 12],
    });
  });

  it("names none for a crash message without rank lines, log rules, WorkerFault and unknown reasons", () => {
    expect(
      agentFaultRanks({ reason: "WorkerCrash", message: "A training worker process has crashed:\n" }),
    ).toEqual({ kind: "none" });
    expect(agentFaultRanks({ reason: "WorkerCrash" })).toEqual({ kind: "none" });
    // A log line quoted by a rule names a rank in the training's words, not the agent's: not read.
    const logFault = `The job detected a fault indicating log message for the following log monitoring rules and corresponding log lines: {'Nccl': '${crashed("Local Rank 1 exited with code 1 due to: x")}'}`;
    expect(agentFaultRanks({ reason: "LogFault_Nccl", message: logFault })).toEqual({ kind: "none" });
    expect(agentFaultRanks({ reason: "LogHang_Steps", message: "The job is hanging" })).toEqual({
      kind: "none",
    });
    expect(
      agentFaultRanks({
        reason: "WorkerFault",
        message: "An unknown fault occurred resulting in the training worker processes becoming unhealthy",
      }),
    ).toEqual({ kind: "none" });
    expect(
      agentFaultRanks({
        reason: "WorkerReportedFault",
        message: "The processes reported a failure on ranks -1",
      }),
    ).toEqual({ kind: "none" });
    expect(agentFaultRanks({ reason: "CheckpointlessFault", message: "rank 3 lost its peer" })).toEqual({
      kind: "none",
    });
    expect(agentFaultRanks({})).toEqual({ kind: "none" });
  });
});
