import { globalRank, type Rendezvous, type WorkerGroup } from "../worker-env";

/**
 * The per-rank variables a `job_start` / `job_rank_info` carries (HyperPod's get_rank_info): what can
 * change between runs of a process that is not restarted. Index = local rank.
 */
export function workerEnvsFor(input: {
  rendezvous: Rendezvous;
  group: WorkerGroup;
  spare: boolean;
}): Record<string, string>[] {
  const { rendezvous, group } = input;
  const worldSize = String(rendezvous.nnodes * group.nprocPerNode);
  return Array.from({ length: group.nprocPerNode }, (_, localRank) => {
    const rank = String(globalRank({ rendezvous, group, localRank }));
    return {
      RANK: rank,
      GROUP_RANK: String(rendezvous.groupRank),
      ROLE_RANK: rank,
      WORLD_SIZE: worldSize,
      GROUP_WORLD_SIZE: String(rendezvous.nnodes),
      ROLE_WORLD_SIZE: worldSize,
      MASTER_ADDR: rendezvous.masterAddr,
      MASTER_PORT: String(rendezvous.masterPort),
      JOB_RESTART_COUNT: String(rendezvous.faultCount),
      TORCHELASTIC_RESTART_COUNT: String(rendezvous.faultCount),
      SPARE: input.spare ? "True" : "False",
    };
  });
}
