import { describe, expect, it } from "vitest";
import { canTransition, createAgentStateMachine, IPR_TRANSITIONS } from "../state";
import { createIpcDispatch, rankFaultOf } from "./dispatch";
import { stopKind } from "./ipr-agent";
import { workerEnvsFor } from "./worker-envs";
import { createIpcWorkerGroup } from "./worker-group";

describe("in-process-restart agent state", () => {
  it("has HyperPod's IPR transitions: back to INIT, and FAULTED before a start", () => {
    expect(canTransition("STOPPING", "INIT", IPR_TRANSITIONS)).toBe(true);
    expect(canTransition("STOPPING", "INIT")).toBe(false);
    expect(canTransition("INIT", "FAULTED", IPR_TRANSITIONS)).toBe(true);
    expect(canTransition("READY", "FAULTED", IPR_TRANSITIONS)).toBe(true);
    expect(canTransition("INIT", "RUNNING", IPR_TRANSITIONS)).toBe(false);
    const sm = createAgentStateMachine({ now: () => 0, table: IPR_TRANSITIONS });
    expect(sm.transition("FAULTED", { reason: "WorkerCrash", message: "m", at: 0 }).ok).toBe(true);
    expect(sm.transition("INIT").ok).toBe(true);
    expect(sm.snapshot()).toMatchObject({ state: "INIT", reason: null });
  });

  it("pauses on a plain /stop, restarts processes when asked, when graceful, or when the workers ended", () => {
    expect(stopKind({ request: {}, workersEnded: false })).toEqual({ kind: "pause" });
    expect(stopKind({ request: { restart_mode: "ipr" }, workersEnded: false })).toEqual({ kind: "pause" });
    expect(
      stopKind({ request: { restart_mode: "PROCESS_LEVEL_RESTART" }, workersEnded: false }),
    ).toMatchObject({
      kind: "restart",
      signal: null,
    });
    expect(stopKind({ request: { is_graceful: true, timeout: 30 }, workersEnded: false })).toMatchObject({
      kind: "restart",
      signal: "SIGUSR1",
      timeoutMs: 30_000,
    });
    expect(stopKind({ request: {}, workersEnded: true })).toMatchObject({ kind: "restart", signal: null });
  });

  it("sends each local rank its run's variables", () => {
    const envs = workerEnvsFor({
      rendezvous: { groupRank: 1, nnodes: 2, masterAddr: "10.0.0.1", masterPort: 23456, faultCount: 3 },
      group: { nprocPerNode: 2, maxRestarts: 0, runId: "r" },
      spare: false,
    });
    expect(envs[1]).toEqual({
      RANK: "3",
      GROUP_RANK: "1",
      ROLE_RANK: "3",
      WORLD_SIZE: "4",
      GROUP_WORLD_SIZE: "2",
      ROLE_WORLD_SIZE: "4",
      MASTER_ADDR: "10.0.0.1",
      MASTER_PORT: "23456",
      JOB_RESTART_COUNT: "3",
      TORCHELASTIC_RESTART_COUNT: "3",
      SPARE: "False",
    });
  });
});

describe("IPC dispatch", () => {
  const setup = () => {
    const group = createIpcWorkerGroup(2);
    const events: string[] = [];
    const dispatch = createIpcDispatch({
      group,
      localWorldSize: 2,
      onBarrier: () => events.push("barrier"),
      onRankFault: (fault) => events.push(`fault ${fault.reason}: ${fault.message}`),
    });
    const send = (type: string, body: Record<string, unknown>, localRank = 0) =>
      dispatch({ type, localRank, clientId: "c", body: { ...body, local_rank: localRank } });
    return { group, events, send };
  };

  it("tracks the barrier and a rank's data, as HyperPod's callbacks do", () => {
    const { group, events, send } = setup();
    send("at_rcb_barrier", {}, 0);
    send("at_rcb_barrier", {}, 1);
    expect(group.atBarrier()).toBe(true);
    expect(events).toEqual(["barrier", "barrier"]);
    send("past_rcb_barrier", {}, 1);
    send("job_data", { rank: 3, data: '{"peer_port":1}' }, 1);
    expect(group.workerData()).toEqual([
      { rank: 3, group_rank: 1, local_rank: 1, failed: false, data: '{"peer_port":1}' },
    ]);
  });

  it("reports a rank's own fault with its reason, or WorkerReportedFault", () => {
    const { group, events, send } = setup();
    send("job_fault", { rank: 2, restart_mode: "in_process_restart", reason: null, message: null }, 0);
    expect(events.at(-1)).toBe("fault WorkerReportedFault: The processes reported a failure on ranks 2");
    send("job_fault", { rank: 3, reason: "NcclTimeout", message: "collective timed out" }, 1);
    expect(rankFaultOf(group)).toEqual({ reason: "NcclTimeout", message: "collective timed out" });
  });

  it("answers checkpoint discovery with the newest step every rank reported", () => {
    const { send } = setup();
    send("ckpt_init", { prefix: "ckpt", checkpoint_types: { model_checkpoint: 2, data_checkpoint: 0 } });
    expect(send("ckpt_info_get", {})).toEqual({ path: null });
    send("ckpt_info_update", { step: 10, path: "/c/10", checkpoint_type: "model_checkpoint" }, 0);
    expect(send("ckpt_info_get", {})).toEqual({ path: null });
    send("ckpt_info_update", { step: 10, path: "/c/10", checkpoint_type: "model_checkpoint" }, 1);
    send("ckpt_info_update", { step: 20, path: "/c/20", checkpoint_type: "model_checkpoint" }, 0);
    expect(send("ckpt_info_get", {})).toEqual({ path: "/c/10" });
  });
});
