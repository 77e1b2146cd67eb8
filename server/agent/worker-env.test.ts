import { describe, expect, it } from "vitest";
import { globalRank, groupEnv, workerEnv } from "./worker-env";

const rendezvous = { groupRank: 1, nnodes: 2, masterAddr: "10.0.0.1", masterPort: 29500, faultCount: 3 };
const group = { nprocPerNode: 4, maxRestarts: 5, runId: "job-1" };

describe("workerEnv", () => {
  it("sets exactly the torch elastic variables on top of the agent's environment", () => {
    const base = { PATH: "/bin", OMP_NUM_THREADS: "2", CUDA_VISIBLE_DEVICES: "0,1,2,3" };
    expect(workerEnv({ base, rendezvous, group, localRank: 2 })).toEqual({
      PATH: "/bin",
      OMP_NUM_THREADS: "2",
      CUDA_VISIBLE_DEVICES: "0,1,2,3",
      LOCAL_RANK: "2",
      RANK: "6",
      GROUP_RANK: "1",
      ROLE_RANK: "6",
      ROLE_NAME: "default",
      LOCAL_WORLD_SIZE: "4",
      WORLD_SIZE: "8",
      GROUP_WORLD_SIZE: "2",
      ROLE_WORLD_SIZE: "8",
      MASTER_ADDR: "10.0.0.1",
      MASTER_PORT: "29500",
      JOB_RESTART_COUNT: "3",
      TORCHELASTIC_RESTART_COUNT: "3",
      TORCHELASTIC_MAX_RESTARTS: "5",
      TORCHELASTIC_RUN_ID: "job-1",
      TORCHELASTIC_USE_AGENT_STORE: "False",
      TORCH_NCCL_ASYNC_ERROR_HANDLING: "1",
      HYPERPOD_SIGNAL_COORDINATION: "disabled",
    });
  });

  it("keeps TORCH_NCCL_ASYNC_ERROR_HANDLING and HYPERPOD_SIGNAL_COORDINATION when the agent has them", () => {
    const base = { TORCH_NCCL_ASYNC_ERROR_HANDLING: "3", HYPERPOD_SIGNAL_COORDINATION: "distributed" };
    const env = workerEnv({ base, rendezvous, group, localRank: 0 });
    expect(env.TORCH_NCCL_ASYNC_ERROR_HANDLING).toBe("3");
    expect(env.HYPERPOD_SIGNAL_COORDINATION).toBe("distributed");
  });

  it("overrides stale torch variables inherited from the agent", () => {
    const env = workerEnv({ base: { RANK: "99", WORLD_SIZE: "1" }, rendezvous, group, localRank: 0 });
    expect(env).toMatchObject({ RANK: "4", WORLD_SIZE: "8" });
  });

  it("gives the pre/post-train scripts the group variables only", () => {
    const env = groupEnv({ base: {}, rendezvous, group });
    expect(env).not.toHaveProperty("LOCAL_RANK");
    expect(env).not.toHaveProperty("RANK");
    expect(env).toMatchObject({ GROUP_RANK: "1", WORLD_SIZE: "8" });
  });

  it("numbers ranks node-major", () => {
    expect(globalRank({ rendezvous: { ...rendezvous, groupRank: 0 }, group, localRank: 3 })).toBe(3);
    expect(globalRank({ rendezvous, group, localRank: 0 })).toBe(4);
  });
});
