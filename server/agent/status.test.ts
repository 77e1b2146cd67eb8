import { describe, expect, it } from "vitest";
import { createRankLogMonitor } from "@/server/domain/log-rules/rank-monitor";
import { createRankRecord, recordLine } from "./rank-record";
import { createAgentStateMachine } from "./state";
import { buildStatus, EMPTY_ASSIGNMENT } from "./status";

const now = () => Date.UTC(2025, 0, 1);

describe("buildStatus", () => {
  it("has only the keys that are set, and always its (here empty) rank list", () => {
    const sm = createAgentStateMachine({ now });
    sm.transition("READY");
    const status = buildStatus({ snapshot: sm.snapshot(), assignment: EMPTY_ASSIGNMENT, ranks: [] });
    expect(JSON.stringify(status)).toBe(
      '{"status":"ready","transitions":{"READY":"2025-01-01T00:00:00.000000+00:00"},"restartMode":"process_level_restart","agent_version":"1.1.0","spare":"False","ranks":[]}',
    );
  });

  it("shows the fault, assignment and ranks in HyperPod's key order", () => {
    const sm = createAgentStateMachine({ now });
    sm.transition("READY");
    sm.transition("RUNNING");
    sm.transition("FAULTED", { reason: "WorkerCrash", message: "m", at: now() - 5 });
    const monitor = createRankLogMonitor({ rules: [{ name: "Loss", logPattern: ".*loss=(\\S+).*" }], now });
    if (!monitor.ok) throw new Error(monitor.reason);
    const record = createRankRecord({ localRank: 1, rank: 5, restarts: 2, monitor: monitor.monitor });
    recordLine(record, { line: "step=7 loss=nan throughput=3.5", at: now() });
    const status = buildStatus({
      snapshot: sm.snapshot(),
      assignment: { assignedRank: 1, ipVersion: "v1", spare: true, progress: { ckpt: { progressCount: 7 } } },
      ranks: [record],
    });
    expect(Object.keys(status)).toEqual([
      "status",
      "transitions",
      "reason",
      "message",
      "restartMode",
      "ipversion",
      "progress",
      "agent_version",
      "assigned_rank",
      "spare",
      "ranks",
      "fault_at",
    ]);
    expect(status).toMatchObject({
      status: "faulted",
      assigned_rank: "1",
      spare: "True",
      fault_at: "2024-12-31T23:59:59.995000+00:00",
    });
    expect(status.ranks?.[0]).toEqual({
      local_rank: 1,
      rank: 5,
      pid: null,
      state: "starting",
      exit_code: null,
      signal: null,
      last_line: "step=7 loss=nan throughput=3.5",
      last_line_at: "2025-01-01T00:00:00.000000+00:00",
      step: 7,
      loss: "nan",
      throughput: 3.5,
      rule_states: { Loss: "HEALTHY" },
      rule_metrics: { Loss: null },
      restarts: 2,
      suspect: false,
      suspect_since: null,
      log_watched: true,
      last_progress_at: "2025-01-01T00:00:00.000000+00:00",
      progress_interval_ms: null,
    });
  });
});
