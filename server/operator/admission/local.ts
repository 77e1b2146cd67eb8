import { type ClusterBackend, type ClusterJob, isNodeHealthy, jobKey } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import { isElastic } from "@/server/domain/elastic/sized-job";
import { baseWorkload } from "@/server/domain/elastic/step-workload";
import { decideAdmissions, teamOfNamespace, whyPending, workloadOf } from "@/server/domain/governance";
import {
  DEFAULT_FLAVOR,
  type FlavorQuantities,
  type GovernanceSnapshot,
  GPU,
  type Workload,
} from "@/server/domain/governance/types";
import { AppError } from "@/server/errors";
import type { Logger } from "@/server/log";
import { type LoadedConfig, loadLocalConfig } from "./local-config";
import { applyDecision, snapshotOf } from "./local-cycle";
import { createLocalElastic, jobOfEntryKey } from "./local-elastic";
import { describeEntry, type Entry, restoreEntry, verdictOf } from "./local-entries";
import type { AdmissionGate, AdmissionVerdict } from "./types";

/**
 * Task governance on the local back end: Rebound's own admission over the pure domain
 * (server/domain/governance), enforcing what Kueue enforces on clusters. Governed jobs are those in the
 * namespace of a team with a ComputeQuota; they queue per team and are admitted when they fit. The quotas
 * are reloaded from Postgres every `reloadMs`; capacity is the healthy virtual nodes' GPUs net of what
 * ungoverned jobs request. An admission cycle runs (debounced) whenever a job arrives, is requeued or
 * released, or the configuration or the nodes change; the jobs whose verdict changed are woken.
 * Admissions are kept in each job's status (status.rebound.admission), so a restart keeps them.
 */
export type LocalAdmission = AdmissionGate & {
  /** The snapshot the next cycle would decide over (why pending, tests, bench). */
  snapshot(now: number): Promise<GovernanceSnapshot>;
  /** Resolves once no cycle is due or running. */
  settled(): Promise<void>;
};

export type LocalAdmissionOptions = {
  db: Db;
  backend: ClusterBackend;
  log: Logger;
  clock?: () => number;
  reloadMs?: number;
  debounceMs?: number;
};

const FINISHED = new Set(["Succeeded", "Failed", "Suspended"]);
/** How long the reasons of what still waits follow an admission (see cycle). */
const SETTLE_MS = 100;

/** Whether a job as listed may hold capacity (not finished, suspended or being deleted). */
function active(job: ClusterJob): boolean {
  const phase = (job.status as { rebound?: { phase?: unknown } }).rebound?.phase;
  return !job.deleting && !job.object.spec.runPolicy?.suspend && !FINISHED.has(String(phase));
}

/**
 * The job's Workload (an elastic job's: at minReplicas, its steps are entries of their own, local-elastic.ts);
 * a request that is not a Kubernetes quantity fails the job (INVALID), naming the field.
 */
function workloadOfJob(job: ClusterJob, team: string): Workload {
  try {
    const opts = { team, createdAt: job.createdAt.getTime() };
    return isElastic(job.object) ? baseWorkload(job.object, opts) : workloadOf(job.object, opts);
  } catch (error) {
    throw new AppError("INVALID", error instanceof Error ? error.message : String(error));
  }
}

function gpusOf(job: ClusterJob): number {
  try {
    return workloadOf(job.object, { team: "", createdAt: job.createdAt.getTime() }).request[GPU] ?? 0;
  } catch {
    return 0; // its pods are refused at creation, with the field named
  }
}

export async function createLocalAdmission(opts: LocalAdmissionOptions): Promise<LocalAdmission> {
  const clock = opts.clock ?? Date.now;
  const entries = new Map<string, Entry>();
  /** Ungoverned active jobs' GPU requests: not the governed jobs' to use. */
  const ungoverned = new Map<string, number>();
  const listeners = new Set<(key: string) => void>();
  /**
   * The reason and message each job's reconcile was last told it waits for (null: told it may run); see
   * sleeping: a job whose message changed (less missing, fewer ahead) is not asleep until it is told.
   */
  const told = new Map<string, string | null>();
  const toldOf = (entry: Entry) => (entry.state === "pending" ? `${entry.reason}\n${entry.message}` : null);
  let loaded: LoadedConfig = await loadLocalConfig(opts.db);
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let disposed = false;

  const wake = (key: string) => {
    for (const listener of listeners) listener(jobOfEntryKey(key));
  };
  const teamOf = (job: ClusterJob) => {
    const team = teamOfNamespace(job.ref.namespace);
    return team !== null && loaded.governed.has(team) ? team : null;
  };
  const capacity = async (): Promise<FlavorQuantities> => {
    const nodes = await opts.backend.listNodes();
    const healthy = nodes.filter(isNodeHealthy).reduce((sum, node) => sum + node.gpus, 0);
    const taken = [...ungoverned.values()].reduce((sum, gpus) => sum + gpus, 0);
    return { [DEFAULT_FLAVOR]: { [GPU]: Math.max(0, healthy - taken) } };
  };
  const elastic = createLocalElastic({
    entries,
    teamOf,
    clock,
    schedule: () => schedule(),
    async freeGpus() {
      let held = 0;
      for (const entry of entries.values())
        if (entry.state !== "pending") held += entry.workload.request[GPU] ?? 0;
      return ((await capacity())[DEFAULT_FLAVOR]?.[GPU] ?? 0) - held;
    },
  });
  const snapshot = async (now: number) =>
    snapshotOf({ config: loaded.config, capacity: await capacity(), entries, now });

  /**
   * Admissions first, reasons after: a cycle decides admissions and preemptions alone (fast however long
   * the queues are) and wakes those jobs; the reasons of the rest come from a full cycle, run at once when
   * nothing was admitted, else SETTLE_MS later, so the woken jobs' reconciles are not kept waiting by it.
   */
  const cycle = async () => {
    const snap = await snapshot(clock());
    const decision = decideAdmissions(snap, { reasons: false });
    if (decision.admit.length > 0 || decision.preempt.length > 0) {
      for (const key of applyDecision(entries, decision, snap.now)) wake(key);
      schedule(SETTLE_MS);
      return;
    }
    for (const key of applyDecision(entries, decideAdmissions(snap), snap.now)) wake(key);
  };
  let due = 0;
  let again: number | null = null;
  /** A cycle within `delayMs` (sooner if one is already due sooner; after the running one, if any). */
  function schedule(delayMs = opts.debounceMs ?? 2) {
    if (disposed) return;
    if (running) again = Math.min(again ?? delayMs, delayMs);
    else startIn(delayMs);
  }
  function startIn(delayMs: number) {
    const at = performance.now() + delayMs;
    if (timer !== null && due <= at) return;
    if (timer !== null) clearTimeout(timer);
    due = at;
    timer = setTimeout(run, delayMs);
  }
  const run = () => {
    timer = null;
    running = cycle()
      .catch((error: unknown) => opts.log.error("admission cycle failed", { error: String(error) }))
      .finally(() => {
        running = null;
        if (again !== null) {
          const delayMs = again;
          again = null;
          schedule(delayMs);
        }
      });
  };

  const track = (job: ClusterJob, team: string, now: number): Entry => {
    const key = jobKey(job.ref);
    const existing = entries.get(key);
    if (existing?.uid === job.uid) return existing;
    const entry = restoreEntry(job, workloadOfJob(job, team), now);
    entries.set(key, entry);
    ungoverned.delete(key);
    schedule();
    return entry;
  };
  const noteUngoverned = (job: ClusterJob) => {
    const key = jobKey(job.ref);
    const gpus = gpusOf(job);
    if (entries.delete(key) || ungoverned.get(key) !== gpus) schedule();
    ungoverned.set(key, gpus);
  };

  const reload = async () => {
    const next = await loadLocalConfig(opts.db);
    if (next.fingerprint === loaded.fingerprint) return;
    loaded = next;
    // A team that lost its quota is no longer governed: its jobs run as ungoverned ones do.
    for (const [key, entry] of entries) {
      if (loaded.governed.has(entry.workload.team)) continue;
      entries.delete(key);
      wake(key);
    }
    schedule();
  };

  for (const job of await opts.backend.listJobs()) {
    if (!active(job)) continue;
    const team = teamOf(job);
    if (team) track(job, team, clock());
    else ungoverned.set(jobKey(job.ref), gpusOf(job));
  }
  let reloading: Promise<void> = Promise.resolve();
  const reloader = setInterval(() => {
    reloading = reload().catch((error: unknown) => {
      if (!disposed) opts.log.error("reloading the governance config failed", { error: String(error) });
    });
  }, opts.reloadMs ?? 2000);
  // A node change (ref null) changes capacity.
  const unsubscribe = opts.backend.onChange((ref) => {
    if (ref === null) schedule();
  });
  schedule();

  const release = (key: string) => {
    told.delete(key);
    const steps = elastic.releaseAll(key);
    if (entries.delete(key) || ungoverned.delete(key) || steps) schedule();
  };

  return {
    async verdict(job, now): Promise<AdmissionVerdict> {
      const team = teamOf(job);
      if (team === null) {
        noteUngoverned(job);
        return { state: "NotGoverned" };
      }
      const entry = track(job, team, now);
      told.set(jobKey(job.ref), toldOf(entry));
      return verdictOf(entry);
    },
    async requeue(job) {
      const key = jobKey(job.ref);
      const entry = entries.get(key);
      if (entry?.state !== "evicting") return;
      entries.set(key, { ...entry, state: "pending", flavor: null, since: clock() });
      schedule();
    },
    async release(job) {
      release(jobKey(job.ref));
    },
    forget: release,
    sleeping(key) {
      const entry = entries.get(key);
      return entry?.state === "pending" && told.get(key) === toldOf(entry);
    },
    describe(job) {
      const entry = entries.get(jobKey(job.ref));
      return entry && entry.uid === job.uid ? describeEntry(entry) : null;
    },
    async whyPending(key) {
      const entry = entries.get(key);
      if (entry === undefined) return { governed: false, answer: null };
      if (entry.state !== "pending") return { governed: true, answer: null };
      return { governed: true, answer: whyPending(await snapshot(clock()), key, entry.preemption) };
    },
    onWake(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    elastic,
    snapshot,
    async settled() {
      while (timer !== null || running !== null) {
        await (running ?? new Promise((resolve) => setTimeout(resolve, 5)));
      }
    },
    async dispose() {
      disposed = true;
      clearInterval(reloader);
      if (timer) clearTimeout(timer);
      unsubscribe();
      await Promise.all([running, reloading]);
    },
  };
}
