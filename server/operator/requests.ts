/**
 * Restarts asked for by people (the console's actions), waiting for the job's next reconcile. In memory: a
 * request lost with an operator restart is simply asked again; it never half-happens, because the
 * reconcile that takes it records the restart and moves the job to Recovering in one status write.
 */
export type ManualRestart =
  /** Restart every process in place (a rank cannot rejoin its collective alone). */
  | { kind: "restart-rank"; rank: number; by: string }
  /** Delete and recreate one pod, then restart the others in place. */
  | { kind: "restart-pod"; pod: string; by: string }
  /** Recreate every pod. */
  | { kind: "restart-job"; by: string };

export type ManualRequests = {
  add(key: string, request: ManualRestart): void;
  /** The job's pending request, removed. */
  take(key: string): ManualRestart | undefined;
  onAdded(listener: (key: string) => void): () => void;
};

export function createManualRequests(): ManualRequests {
  const pending = new Map<string, ManualRestart>();
  const listeners = new Set<(key: string) => void>();
  return {
    add(key, request) {
      pending.set(key, request);
      for (const listener of listeners) listener(key);
    },
    take(key) {
      const request = pending.get(key);
      pending.delete(key);
      return request;
    },
    onAdded(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
