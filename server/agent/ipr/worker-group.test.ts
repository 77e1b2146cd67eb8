import { describe, expect, it } from "vitest";
import { createIpcWorkerGroup, restartModeOf } from "./worker-group";

describe("IPC worker group (HyperPod's IPCWorkerGroup)", () => {
  it("is at the barrier only when every local rank is", () => {
    const group = createIpcWorkerGroup(3);
    group.notifyAtBarrier(0);
    group.notifyAtBarrier(2);
    expect(group.atBarrier()).toBe(false);
    group.notifyAtBarrier(1);
    expect(group.atBarrier()).toBe(true);
    group.notifyPastBarrier(1);
    expect(group.atBarrier()).toBe(false);
    expect(group.passedBarrier()).toBe(false);
  });

  it("keeps a rank's data across an in-process restart until it passes the barrier again", () => {
    const group = createIpcWorkerGroup(2);
    group.setData({ localRank: 1, rank: 5, groupRank: 2, data: '{"port":9001}' });
    expect(group.workerData()).toEqual([
      { rank: 5, group_rank: 2, local_rank: 1, failed: false, data: '{"port":9001}' },
    ]);
    group.reset(false);
    expect(group.workerData()).toHaveLength(1);
    group.notifyPastBarrier(1);
    expect(group.workerData()).toEqual([]);
    group.setData({ localRank: 0, rank: 4, groupRank: 2, data: "x" });
    group.reset(true);
    expect(group.workerData()).toEqual([]);
  });

  it("records a reported failure with its restart mode; past the barrier forgets it", () => {
    const group = createIpcWorkerGroup(2);
    group.failRank({
      localRank: 0,
      rank: 0,
      groupRank: 0,
      reason: "NcclTimeout",
      message: "m",
      restartMode: "process_level_restart",
    });
    expect(group.isFailed()).toBe(true);
    expect(group.operatorRestartMode()).toBe("process_level_restart");
    group.failRank({
      localRank: 1,
      rank: 1,
      groupRank: 0,
      reason: null,
      message: null,
      restartMode: "job_level_restart",
    });
    expect(group.operatorRestartMode()).toBe("job_level_restart");
    group.reset(false);
    expect(group.isFailed()).toBe(false);
    expect(group.operatorRestartMode()).toBeNull();
  });

  it("reads restart modes as HyperPod does (member names, any case; unknown is in-process)", () => {
    expect(restartModeOf("PROCESS_LEVEL_RESTART")).toBe("process_level_restart");
    expect(restartModeOf("local_prl")).toBe("local_process_level_restart");
    expect(restartModeOf("ipr")).toBe("in_process_restart");
    expect(restartModeOf("global_plr")).toBe("in_process_restart");
    expect(restartModeOf(undefined)).toBe("in_process_restart");
  });
});
