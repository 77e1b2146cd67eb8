import type { ClusterBackend, ClusterJob, JobRef } from "@/server/cluster/types";
import { jobKey } from "@/server/cluster/types";
import type { JobStatus } from "@/server/domain/job-spec/job-status.schema";
import { aggregateRanks, isFaultState, type RankLogState } from "@/server/domain/log-rules/aggregate";
import { createRankLogMonitor, type RankLogMonitor } from "@/server/domain/log-rules/rank-monitor";
import type { ClusterView, RestartRecord } from "@/server/domain/recovery/types";
import type { Logger } from "@/server/log";
import { policyLabelText, rulesFingerprint, type ShadowRules, shadowRules } from "./marks";
import { isWatched, lastLines, linesAfter, parseRankLine, watchesAllRanks } from "./output";
import type { VerdictStore } from "./verdict-store";
import { type ShadowFault, verdictMessage, wouldDo } from "./would-do";

/**
 * Shadow mode (issue 12): for running jobs with a shadow rule set, the operator reads each watched rank's new
 * output, runs the shadow rules on it (createRankLogMonitor, real clock) and, when a pod's watched ranks turn
 * HANGING/SLOW/FAULTED, records what the restart policy would have done (a ShadowVerdict row and a Normal
 * `ShadowWouldRestart` event). It never acts. Monitors start afresh at each attempt. Reconciles tell it
 * which jobs run (observe); its own timer reads their output.
 */
export type ShadowObservation = {
  job: ClusterJob;
  running: boolean;
  /** Changes at each attempt (the rendezvous chosen for it). */
  attempt: string;
  pods: ReadonlyArray<{ name: string; groupRank: number; node: string | null }>;
  ranksPerNode: number;
  status: JobStatus;
  history: readonly RestartRecord[];
  cluster: ClusterView;
};

export type ShadowWatcher = {
  observe(observation: ShadowObservation): void;
  forget(ref: JobRef): void;
  /** One pass over every watched job (the timer's; tests call it too). */
  tick(): Promise<void>;
  stop(): void;
};

/** The part of a line kept with a verdict. */
const LINE_CHARS = 1000;
/** Lines of a pod's output read per pass (the back ends give a tail). */
const TAIL_LINES = 2000;
const TICK_MS = 1000;
/** How long a watch may read no watched rank line before it says so. */
const SILENT_MS = 60_000;

type PodWatch = {
  name: string;
  groupRank: number;
  node: string | null;
  monitors: Map<number, RankLogMonitor>;
  seen: string[] | null;
  faulted: boolean;
};

type JobWatch = {
  identity: string;
  shadow: ShadowRules;
  observation: ShadowObservation;
  pods: Map<string, PodWatch>;
  /** Epoch ms the watch began; whether any watched rank line was read since, and whether that was told. */
  since: number;
  heard: boolean;
  toldSilent: boolean;
};

const splitLines = (text: string) => {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
};

export function createShadowWatcher(deps: {
  backend: Pick<ClusterBackend, "podLogs" | "recordEvent">;
  verdicts: VerdictStore;
  log: Logger;
  clock?: () => number;
  tickMs?: number;
}): ShadowWatcher {
  const clock = deps.clock ?? Date.now;
  const jobs = new Map<string, JobWatch>();
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;

  const monitorFor = (job: JobWatch, pod: PodWatch, localRank: number): RankLogMonitor | null => {
    const existing = pod.monitors.get(localRank);
    if (existing) return existing;
    const created = createRankLogMonitor({ rules: job.shadow.rules, now: clock });
    if (!created.ok) return null;
    pod.monitors.set(localRank, created.monitor);
    return created.monitor;
  };

  const podWatch = (pod: ShadowObservation["pods"][number]): PodWatch => ({
    ...pod,
    monitors: new Map(),
    seen: null,
    faulted: false,
  });

  /** The job's watch for this observation: kept while run, attempt and rules stay, else started afresh. */
  const watchFor = (observation: ShadowObservation, shadow: ShadowRules): JobWatch => {
    const identity = `${observation.job.uid}|${observation.attempt}|${rulesFingerprint(shadow.rules)}`;
    const current = jobs.get(jobKey(observation.job.ref));
    if (current?.identity === identity) {
      current.observation = observation;
      return current;
    }
    return {
      identity,
      shadow,
      observation,
      pods: new Map(),
      since: clock(),
      heard: false,
      toldSilent: false,
    };
  };

  const observe = (observation: ShadowObservation) => {
    const key = jobKey(observation.job.ref);
    const shadow = observation.running ? shadowRules(observation.job) : null;
    if (!shadow) {
      jobs.delete(key);
      return;
    }
    const watch = watchFor(observation, shadow);
    for (const pod of observation.pods)
      if (!watch.pods.has(pod.name)) watch.pods.set(pod.name, podWatch(pod));
    jobs.set(key, watch);
    timer ??= setInterval(() => void tick(), deps.tickMs ?? TICK_MS);
    timer.unref?.();
  };

  const record = async (job: JobWatch, fault: ShadowFault) => {
    const { observation, shadow } = job;
    const would = wouldDo({
      fault,
      runPolicy: observation.job.job.spec.runPolicy,
      status: {
        restartCount: observation.status.restartCount,
        restartStatus: observation.status.restartStatus,
      },
      history: observation.history,
      cluster: observation.cluster,
    });
    const rule = fault.rules[0]?.rule ?? "";
    const ref = observation.job.ref;
    await deps.verdicts.save({
      jobUid: observation.job.uid,
      namespace: ref.namespace,
      jobName: ref.name,
      pod: fault.pod,
      rank: fault.rank,
      rule,
      state: fault.state,
      reason: would.reason,
      line: fault.rules[0]?.line?.slice(0, LINE_CHARS) ?? null,
      wouldAction: would.action,
      policy: shadow.policy ? policyLabelText(shadow.policy) : null,
      at: new Date(fault.at),
    });
    const message = verdictMessage({ action: would.action, rule, state: fault.state, at: fault.at });
    await deps.backend.recordEvent(ref, { type: "Normal", reason: "ShadowWouldRestart", message });
  };

  /** Feeds the pod's new watched lines to its monitors; the pod's combined state after them. */
  const readPod = async (job: JobWatch, pod: PodWatch): Promise<{ state: RankLogState; rank: number }> => {
    const text = await deps.backend.podLogs(job.observation.job.ref, pod.name, TAIL_LINES);
    const lines = splitLines(text);
    // The first read of an attempt starts at its end: what the pod wrote before is an earlier attempt's.
    const fresh = pod.seen === null ? [] : linesAfter(pod.seen, lines);
    pod.seen = lastLines(lines);
    const allRanks = watchesAllRanks(job.observation.job.job);
    monitorFor(job, pod, 0);
    for (const line of fresh) {
      const parsed = parseRankLine(line);
      if (!parsed || !isWatched(parsed.localRank, allRanks)) continue;
      job.heard = true;
      monitorFor(job, pod, parsed.localRank)?.onLine(parsed.text);
    }
    const states = [...pod.monitors.entries()].map(([localRank, monitor]) => ({
      localRank,
      state: monitor.tick(),
    }));
    const state = aggregateRanks(states.map((entry) => entry.state));
    const worst = states.find((entry) => entry.state.state === state.state) ?? states[0];
    return { state, rank: pod.groupRank * job.observation.ranksPerNode + (worst?.localRank ?? 0) };
  };

  const watchPod = async (job: JobWatch, pod: PodWatch) => {
    const { state, rank } = await readPod(job, pod);
    const faulted = isFaultState(state.state);
    if (!pod.faulted && isFaultState(state.state)) {
      await record(job, {
        pod: pod.name,
        node: pod.node,
        rank,
        state: state.state,
        rules: state.rules,
        at: clock(),
      });
    }
    pod.faulted = faulted;
  };

  /**
   * The agent puts its ranks' lines in the pod's output only when it tees them (`--tee 3`); without them a
   * shadow has nothing to judge, which is said once per attempt rather than left to look like a quiet job.
   */
  const tellIfSilent = async (job: JobWatch) => {
    if (job.heard || job.toldSilent || clock() - job.since < SILENT_MS) return;
    job.toldSilent = true;
    await deps.backend.recordEvent(job.observation.job.ref, {
      type: "Warning",
      reason: "ShadowNoRankOutput",
      message: `the shadow rules read no rank output in ${SILENT_MS / 1000}s: the pods' output carries the ranks' lines only when the agent tees them (--tee 3)`,
    });
  };

  const pass = async () => {
    for (const job of [...jobs.values()]) {
      await tellIfSilent(job).catch(() => undefined);
      for (const pod of job.pods.values()) {
        await watchPod(job, pod).catch((error: unknown) =>
          deps.log.warn("shadow rules: reading a pod failed", {
            job: jobKey(job.observation.job.ref),
            pod: pod.name,
            error: String(error),
          }),
        );
      }
    }
  };

  const tick = (): Promise<void> => {
    running ??= pass().finally(() => {
      running = null;
    });
    return running;
  };

  return {
    observe,
    forget: (ref) => {
      jobs.delete(jobKey(ref));
    },
    tick,
    stop: () => {
      if (timer) clearInterval(timer);
      timer = null;
      jobs.clear();
    },
  };
}
