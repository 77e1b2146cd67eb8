import type { ConsoleJob, ConsoleView } from "@/server/cluster/kubernetes/console-view";
import type { JobRef } from "@/server/cluster/types";
import type { LiveJob } from "@/server/domain/operator-api/contract";
import { type ClusterSource, SourceError } from "./types";

/**
 * Console-only mode: jobs run by another operator (AWS's), read from the cluster's caches. There is no
 * per-rank live state: ranks count as running when their pod runs. Restarts belong to that operator.
 */
function toLiveJob(job: ConsoleJob): LiveJob {
  const ranksPerNode = job.ranks !== null && job.nodes > 0 ? job.ranks / job.nodes : 0;
  const running = job.pods.filter((pod) => pod.phase === "Running").length;
  return {
    namespace: job.namespace,
    name: job.name,
    createdAt: job.createdAt,
    gpus: job.gpus,
    priorityClass: job.priorityClass,
    queue: job.queue,
    phase: job.status === "Running" ? "Running" : job.status === "Failed" ? "Failed" : "Starting",
    status: job.status,
    recovery: null,
    restartCount: job.restartCount,
    pods: job.pods.map((pod, index) => ({
      name: pod.name,
      node: pod.node,
      phase: pod.phase,
      groupRank: index,
      agentState: null,
      agentReason: null,
      agentError: null,
      ranks: [],
    })),
    ranksTotal: job.ranks ?? 0,
    ranksRunning: running * ranksPerNode,
    updatedAt: Date.now(),
  };
}

export function createConsoleOnlySource(
  view: ConsoleView,
  backend: {
    setSuspended: (ref: JobRef, suspend: boolean) => Promise<boolean>;
    requestDeletion: (ref: JobRef) => Promise<void>;
  },
): ClusterSource {
  const notHere = () => {
    throw new SourceError(
      409,
      "console-only mode: restarts and fault injection belong to the cluster's own operator",
    );
  };
  // Policies are the running operator's to enforce; AWS's operator would not watch a shadow either.
  const readOnly = () => {
    throw new SourceError(409, "this console is read-only against the cluster's own operator");
  };
  return {
    mode: "console-only",
    jobs: async () => view.jobs().map(toLiveJob),
    async job(ref) {
      const job = view.job(ref);
      return job
        ? { live: toLiveJob(job), events: await view.events(ref), logRules: [], policy: null, restarts: null }
        : null;
    },
    nodes: async () =>
      (await view.nodes()).map((node) => ({
        name: node.name,
        health: node.health,
        ready: node.ready,
        gpus: node.gpus,
        changedAt: 0,
        ...(node.verdict ? { verdict: node.verdict } : {}),
      })),
    logs: (ref, pod, tailLines) => view.logs(ref, pod, tailLines),
    rankOutput: (ref, target) => view.rankOutput(ref, target.pod, target.localRank),
    async act(ref, action) {
      if (action.action !== "suspend" && action.action !== "resume") return notHere();
      await backend.setSuspended(ref, action.action === "suspend");
    },
    injectFault: async () => notHere(),
    applyRunPolicy: async () => readOnly(),
    history: async () => {
      throw new SourceError(
        501,
        "console-only mode keeps no metrics history (the cluster's own operator runs the jobs): set PROMETHEUS_URL",
      );
    },
    setShadowPolicy: async () => readOnly(),
    delete: (ref) => backend.requestDeletion(ref),
  };
}
