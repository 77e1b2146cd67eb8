import { jobKey } from "@/server/cluster/types";
import type { OperatorDeps } from "./reconcilers/deps";
import { reconcileJob } from "./reconcilers/reconcile-job";
import { createWorkQueue, type WorkQueue } from "./workqueue";

/**
 * Feeds the workqueue: every change the back end reports queues the job's key (or every job, for a node
 * change); a periodic resync queues all jobs as a safety net, as informers' relists do.
 */
export type Controller = { queue: WorkQueue; start(): Promise<void>; stop(): Promise<void> };

/**
 * HyperPod's per-namespace job counters (created, deleted, successful, failed) exported from 0 once a
 * namespace has a job, so Prometheus' increase() and rate() see the first event of each (a series that
 * appears at 1 has no earlier sample to grow from) and every chart of them has a line from the start.
 */
function zeroNamespaceCounters(metrics: OperatorDeps["metrics"]) {
  const seen = new Set<string>();
  return (namespace: string) => {
    if (seen.has(namespace)) return;
    seen.add(namespace);
    for (const counter of [metrics.created, metrics.deleted, metrics.successful, metrics.failed])
      counter.inc({ namespace }, 0);
  };
}

export function createController(
  deps: OperatorDeps,
  opts: { workers: number; resyncMs: number },
): Controller {
  const zeroCounters = zeroNamespaceCounters(deps.metrics);
  const queue = createWorkQueue({
    workers: opts.workers,
    handler: async (key) => {
      const started = performance.now();
      try {
        return await reconcileJob(deps, key);
      } finally {
        deps.metrics.reconcileSeconds.observe({}, (performance.now() - started) / 1000);
      }
    },
    onError: (key, error) => {
      deps.metrics.reconcileErrors.inc();
      deps.log.error("reconcile failed; retrying with backoff", { key, error: String(error) });
    },
  });
  let unsubscribe: (() => void) | undefined;
  let unsubscribeRequests: (() => void) | undefined;
  let unsubscribeAdmission: (() => void) | undefined;
  let unsubscribePresence: (() => void) | undefined;
  let resync: NodeJS.Timeout | undefined;

  /** Every job; on a resync, not those asleep in the admission queue (the gate wakes them on a change). */
  const queueAll = async (resync: boolean) => {
    const { backend } = deps;
    const refs = backend.listJobRefs
      ? await backend.listJobRefs()
      : (await backend.listJobs()).map((job) => job.ref);
    deps.metrics.activeJobs.set({}, refs.length);
    for (const ref of refs) {
      zeroCounters(ref.namespace);
      const key = jobKey(ref);
      if (!resync || !deps.admission?.sleeping?.(key)) queue.add(key);
    }
  };

  return {
    queue,
    async start() {
      unsubscribeRequests = deps.requests.onAdded((key) => queue.add(key));
      // An admission decision (admitted, preempted, a new reason to wait) reconciles the job.
      // Ahead of a resync's keys: a freed GPU waits on this reconcile.
      unsubscribeAdmission = deps.admission?.onWake?.((key) => queue.addFirst(key));
      // A pushed state change or a silent agent reconciles its job first; progress takes its turn.
      unsubscribePresence = deps.presence?.onWake((key, urgent) =>
        urgent ? queue.addFirst(key) : queue.add(key),
      );
      unsubscribe = deps.backend.onChange((ref) => {
        if (ref) {
          zeroCounters(ref.namespace);
          queue.add(jobKey(ref));
        } else for (const job of deps.live.list()) queue.add(`${job.namespace}/${job.name}`);
      });
      await queueAll(false);
      resync = setInterval(() => {
        deps.metrics.queueDepth.set({}, queue.depth());
        void queueAll(true).catch((error: unknown) =>
          deps.log.error("resync failed", { error: String(error) }),
        );
      }, opts.resyncMs);
    },
    async stop() {
      clearInterval(resync);
      unsubscribe?.();
      unsubscribeRequests?.();
      unsubscribeAdmission?.();
      unsubscribePresence?.();
      await queue.shutdown();
      deps.presence?.stop();
    },
  };
}
