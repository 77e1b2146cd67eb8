import type { ProcessEnv } from "./env";

/**
 * The environment of every worker process (docs/hyperpod-compatibility.md, "The agent's command line"; the
 * agent's `_start_workers`): the agent's own environment (OMP_NUM_THREADS, CUDA_VISIBLE_DEVICES, PATH, … pass
 * through) plus the torch elastic variables. HYPERPOD_ELASTICAGENT_SOCKET_SERVER_PATH (the IPC unix socket)
 * is added by the in-process-restart agent (ipr/ipr-agent.ts) only.
 */

/** What the operator sent in /start, as the launcher needs it. */
export type Rendezvous = {
  groupRank: number;
  nnodes: number;
  masterAddr: string;
  masterPort: number;
  faultCount: number;
};

export type WorkerGroup = { nprocPerNode: number; maxRestarts: number; runId: string };

/** Variables shared by every process of the group (also given to the pre/post-train scripts). */
export function groupEnv(input: {
  base: ProcessEnv;
  rendezvous: Rendezvous;
  group: WorkerGroup;
}): ProcessEnv {
  const { base, rendezvous, group } = input;
  const worldSize = rendezvous.nnodes * group.nprocPerNode;
  return {
    ...base,
    GROUP_RANK: String(rendezvous.groupRank),
    ROLE_NAME: "default",
    LOCAL_WORLD_SIZE: String(group.nprocPerNode),
    WORLD_SIZE: String(worldSize),
    GROUP_WORLD_SIZE: String(rendezvous.nnodes),
    ROLE_WORLD_SIZE: String(worldSize),
    MASTER_ADDR: rendezvous.masterAddr,
    MASTER_PORT: String(rendezvous.masterPort),
    JOB_RESTART_COUNT: String(rendezvous.faultCount),
    TORCHELASTIC_RESTART_COUNT: String(rendezvous.faultCount),
    TORCHELASTIC_MAX_RESTARTS: String(group.maxRestarts),
    TORCHELASTIC_RUN_ID: group.runId,
    TORCHELASTIC_USE_AGENT_STORE: "False",
    TORCH_NCCL_ASYNC_ERROR_HANDLING: base.TORCH_NCCL_ASYNC_ERROR_HANDLING ?? "1",
    HYPERPOD_SIGNAL_COORDINATION: base.HYPERPOD_SIGNAL_COORDINATION ?? "disabled",
  };
}

export function globalRank(input: { rendezvous: Rendezvous; group: WorkerGroup; localRank: number }): number {
  return input.rendezvous.groupRank * input.group.nprocPerNode + input.localRank;
}

export function workerEnv(input: {
  base: ProcessEnv;
  rendezvous: Rendezvous;
  group: WorkerGroup;
  localRank: number;
}): ProcessEnv {
  const rank = String(globalRank(input));
  return { ...groupEnv(input), LOCAL_RANK: String(input.localRank), RANK: rank, ROLE_RANK: rank };
}
