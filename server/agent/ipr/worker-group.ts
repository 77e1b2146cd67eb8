/**
 * What the agent knows of its local ranks over IPC: HyperPod's IPCWorkerGroup (ipc/util.py). A rank is
 * HEALTHY, AT_BARRIER (waiting at the re-executable code block barrier), PAST_BARRIER (running the block)
 * or FAILED (it reported `job_fault`). Its `data` (from `job_data`) goes to the operator in /status
 * `worker_data`; it is kept across an in-process restart until the rank passes the barrier again, and
 * dropped by a process-level restart.
 */

export const RESTART_MODES = [
  "in_process_restart",
  "process_level_restart",
  "job_level_restart",
  "local_process_level_restart",
] as const;
export type RestartMode = (typeof RESTART_MODES)[number];

export type IpcRankState = "HEALTHY" | "AT_BARRIER" | "PAST_BARRIER" | "FAILED";

export type IpcRank = {
  localRank: number;
  rank: number;
  groupRank: number;
  data: string | null;
  restartMode: RestartMode;
  reason: string | null;
  message: string | null;
  state: IpcRankState;
  failed: boolean;
};

export type WorkerDataEntry = {
  rank: number;
  group_rank: number;
  local_rank: number;
  failed: boolean;
  data: string;
};

const fresh = (localRank: number, data: string | null = null): IpcRank => ({
  localRank,
  rank: -1,
  groupRank: -1,
  data,
  restartMode: "in_process_restart",
  reason: null,
  message: null,
  state: "HEALTHY",
  failed: false,
});

/** HyperPod's `RestartMode[name.upper()]` lookup, by value too; unknown → in-process restart. */
export function restartModeOf(value: unknown): RestartMode {
  if (typeof value !== "string") return "in_process_restart";
  const lower = value.toLowerCase();
  if (lower === "local_prl") return "local_process_level_restart";
  return RESTART_MODES.find((mode) => mode === lower) ?? "in_process_restart";
}

export type IpcWorkerGroup = ReturnType<typeof createIpcWorkerGroup>;

export function createIpcWorkerGroup(localWorldSize: number) {
  let workers: IpcRank[] = Array.from({ length: localWorldSize }, (_, localRank) => fresh(localRank));
  let labels: Record<string, string> = {};
  const at = (localRank: number): IpcRank | null => workers[localRank] ?? null;
  return {
    workers: () => workers as readonly IpcRank[],
    isFailed: () => workers.some((w) => w.state === "FAILED"),
    atBarrier: () => workers.every((w) => w.state === "AT_BARRIER"),
    passedBarrier: () => workers.every((w) => w.state === "PAST_BARRIER"),
    failedRanks: () => workers.filter((w) => w.state === "FAILED"),
    /** The rank alone gets a new process: HEALTHY again, its data dropped. */
    resetRank(localRank: number) {
      workers = workers.map((w) => (w.localRank === localRank ? fresh(localRank) : w));
    },
    /** `reset(clear_data)`: every rank HEALTHY again, its data kept unless a process-level restart. */
    reset(clearData: boolean) {
      workers = workers.map((w) => fresh(w.localRank, clearData ? null : w.data));
    },
    failRank(input: {
      localRank: number;
      rank: number;
      groupRank: number;
      reason: string | null;
      message: string | null;
      restartMode: RestartMode;
    }) {
      const w = at(input.localRank);
      if (w === null) return;
      Object.assign(w, { ...input, state: "FAILED", failed: true });
    },
    setData(input: { localRank: number; rank: number; groupRank: number; data: string }) {
      const w = at(input.localRank);
      if (w !== null) Object.assign(w, input);
    },
    updateRankInfo(input: { localRank: number; rank: number; groupRank: number }) {
      const w = at(input.localRank);
      if (w !== null) Object.assign(w, input);
    },
    notifyAtBarrier(localRank: number) {
      const w = at(localRank);
      if (w !== null) w.state = "AT_BARRIER";
    },
    /** The rank started the block: its previous data is dropped, its failure forgotten. */
    notifyPastBarrier(localRank: number) {
      const w = at(localRank);
      if (w === null) return;
      Object.assign(w, {
        data: null,
        state: "PAST_BARRIER",
        restartMode: "in_process_restart",
        failed: false,
      });
    },
    assignLabels(next: Record<string, string>) {
      labels = next;
    },
    labels: () => labels,
    workerData(): WorkerDataEntry[] {
      return workers.flatMap((w) =>
        w.data === null
          ? []
          : [
              {
                rank: w.rank,
                group_rank: w.groupRank,
                local_rank: w.localRank,
                failed: w.failed,
                data: w.data,
              },
            ],
      );
    },
    /** A restart the operator must carry out, asked for by a rank (JLR over PLR); null: none. */
    operatorRestartMode(): RestartMode | null {
      if (workers.some((w) => w.restartMode === "job_level_restart")) return "job_level_restart";
      if (workers.some((w) => w.restartMode === "process_level_restart")) return "process_level_restart";
      return null;
    },
    /** A rank asked for a process-level restart of this node only. */
    wantsLocalPlr: () => workers.some((w) => w.restartMode === "local_process_level_restart"),
  };
}
