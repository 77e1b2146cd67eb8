import { RULE_LINE_BUDGET_MS, RULE_MAX_QUEUED } from "@/server/agent/rule-queue";
import type { ClusterBackend, ClusterJob, JobRef } from "@/server/cluster/types";
import { jobKey } from "@/server/cluster/types";
import type { JobStatus } from "@/server/domain/job-spec/job-status.schema";
import type { ClusterView, RestartRecord } from "@/server/domain/recovery/types";
import type { Logger } from "@/server/log";
import type { FromShadowEngine, ToShadowEngine } from "./engine";
import { SILENT_MS } from "./engine";
import { policyLabelText, rulesFingerprint, type ShadowRules, shadowRules } from "./marks";
import { watchesAllRanks } from "./output";
import { createShadowThread, type ShadowEvaluator } from "./thread";
import type { VerdictStore } from "./verdict-store";
import { type ShadowFault, verdictMessage, wouldDo } from "./would-do";

/**
 * Shadow mode (issue 12): for running jobs with a shadow rule set, the operator reads each watched rank's new
 * output, runs the shadow rules on it (createRankLogMonitor, real clock) and, when a pod's watched ranks turn
 * HANGING/SLOW/FAULTED, records what the restart policy would have done (a ShadowVerdict row and a Normal
 * `ShadowWouldRestart` event). It never acts. Monitors start afresh at each attempt. Reconciles tell it
 * which jobs run (observe); its own timer reads their output.
 *
 * The rules run in the shadow thread (engine.ts, thread.ts: issue 34), within the budget of enforced rules;
 * this thread only reads the pods' output, hands it over and records what comes back. When the rules cannot
 * keep up, the job says so (Warning events `ShadowRulesOverBudget`, `ShadowRulesBehind`) instead of the
 * operator waiting for them. While the thread has not answered the previous pass, a pass reads nothing, and
 * a job whose lines wait in the thread (engine.ts BUSY_LINES) is not read until they are judged.
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
/** At most this much of a pod's output goes to the thread per pass (the local back end reads 1 MiB). */
const TAIL_CHARS = 1024 * 1024;
const TICK_MS = 1000;
/** A pass unanswered this long is logged once, and the next pass no longer waits for it. */
const LATE_PASS_MS = 10_000;

type JobWatch = {
  identity: string;
  shadow: ShadowRules;
  observation: ShadowObservation;
  /** The pods last sent to the thread, by name. */
  sent: string;
  told: Set<"overBudget" | "behind">;
};

/** The end of a pod's output, cut at a line start. */
function tailOf(text: string): string {
  if (text.length <= TAIL_CHARS) return text;
  return text.slice(text.indexOf("\n", text.length - TAIL_CHARS) + 1);
}

export function createShadowWatcher(deps: {
  backend: Pick<ClusterBackend, "podLogs" | "recordEvent">;
  verdicts: VerdictStore;
  log: Logger;
  clock?: () => number;
  tickMs?: number;
  /** Where the rules run: the shadow thread (default), or this thread (tests). */
  evaluator?: ShadowEvaluator;
}): ShadowWatcher {
  const clock = deps.clock ?? Date.now;
  const log = deps.log.child({ component: "shadow" });
  const evaluator = deps.evaluator ?? createShadowThread({ log });
  const jobs = new Map<string, JobWatch>();
  const recording = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let passes = 0;
  let waiting: { pass: number; since: number; told: boolean } | null = null;
  /** Jobs whose lines wait in the thread: their output is not read (what it read would be dropped). */
  let busy: ReadonlySet<string> = new Set();

  const send = (message: ToShadowEngine) => evaluator.send(message);

  /** The job's watch for this observation: kept while run, attempt and rules stay, else started afresh. */
  const watchFor = (observation: ShadowObservation, shadow: ShadowRules): JobWatch => {
    const identity = `${observation.job.uid}|${observation.attempt}|${rulesFingerprint(shadow.rules)}`;
    const current = jobs.get(jobKey(observation.job.ref));
    if (current?.identity === identity) {
      current.observation = observation;
      return current;
    }
    return { identity, shadow, observation, sent: "", told: new Set() };
  };

  const observe = (observation: ShadowObservation) => {
    const key = jobKey(observation.job.ref);
    const shadow = observation.running ? shadowRules(observation.job) : null;
    if (!shadow) {
      if (jobs.delete(key)) send({ type: "forget", key });
      return;
    }
    const watch = watchFor(observation, shadow);
    jobs.set(key, watch);
    const pods = observation.pods.map((pod) => ({ ...pod }));
    const sent = `${watch.identity}|${pods.map((pod) => pod.name).join(",")}`;
    if (sent !== watch.sent) {
      watch.sent = sent;
      send({
        type: "watch",
        key,
        identity: watch.identity,
        rules: shadow.rules,
        allRanks: watchesAllRanks(observation.job.object),
        ranksPerNode: observation.ranksPerNode,
        pods,
      });
    }
    timer ??= setInterval(() => void tick(), deps.tickMs ?? TICK_MS);
    timer.unref?.();
  };

  const record = async (job: JobWatch, fault: ShadowFault) => {
    const { observation, shadow } = job;
    const would = wouldDo({
      fault,
      runPolicy: observation.job.object.spec.runPolicy,
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

  const warn = (job: JobWatch, reason: string, message: string) =>
    deps.backend.recordEvent(job.observation.job.ref, { type: "Warning", reason, message });

  /** Said once per attempt as an event (a user sees it on the job); every occurrence is logged. */
  const tellOnce = (job: JobWatch, what: "overBudget" | "behind", reason: string, message: string) => {
    if (job.told.has(what)) return;
    job.told.add(what);
    return warn(job, reason, message);
  };

  /** What the thread found, for the job's current watch only (an earlier attempt's is dropped). */
  const handle = async (message: Exclude<FromShadowEngine, { type: "ticked" }>) => {
    const job = jobs.get(message.key);
    if (!job || job.identity !== message.identity) return;
    const where = { job: message.key };
    switch (message.type) {
      case "fault":
        return record(job, message.fault);
      case "silent":
        return warn(
          job,
          "ShadowNoRankOutput",
          `the shadow rules read no rank output in ${SILENT_MS / 1000}s: the pods' output carries the ranks' lines only when the agent tees them (--tee 3)`,
        );
      case "overBudget":
        log.warn(`shadow rule ${message.rule} exceeded the per-line budget`, {
          ...where,
          spentMs: message.spentMs,
          skippedRules: message.skipped,
        });
        return tellOnce(
          job,
          "overBudget",
          "ShadowRulesOverBudget",
          `shadow rule ${message.rule} exceeded the per-line budget (${RULE_LINE_BUDGET_MS} ms of rule time, as enforced rules have): the ${message.skipped} rules after it count that line as not matched; further rules past the budget are in the operator's log`,
        );
      case "behind":
        log.warn("shadow rules are behind: newer lines are not judged", {
          ...where,
          queued: message.queued,
        });
        return tellOnce(
          job,
          "behind",
          "ShadowRulesBehind",
          `the shadow rules fell behind the ranks' output (${message.queued} lines waiting to be judged, at most ${RULE_MAX_QUEUED}): newer lines are not judged until they catch up, so a verdict may come late or not at all`,
        );
      case "invalid":
        return log.warn("shadow rules do not compile: not judged", { ...where, reason: message.reason });
    }
  };

  evaluator.onMessage((message) => {
    if (message.type === "ticked") {
      if (waiting && (message.pass === waiting.pass || message.pass === -1)) waiting = null;
      busy = new Set(message.busy);
      return;
    }
    const done = handle(message)
      .catch((error: unknown) =>
        log.warn("shadow rules: recording failed", { job: message.key, error: String(error) }),
      )
      .finally(() => recording.delete(done));
    recording.add(done);
  });

  /** Hands the pod's output to the thread. */
  const readPod = async (key: string, job: JobWatch, pod: string) => {
    try {
      const text = await deps.backend.podLogs(job.observation.job.ref, pod, TAIL_LINES);
      send({ type: "read", key, identity: job.identity, pod, text: tailOf(text) });
    } catch (error) {
      log.warn("shadow rules: reading a pod failed", { job: key, pod, error: String(error) });
    }
  };

  /** Whether the pass may go on: the thread answered the previous one, or has not for LATE_PASS_MS. */
  const answered = (): boolean => {
    if (!waiting) return true;
    const waited = clock() - waiting.since;
    if (waited < LATE_PASS_MS) return false;
    if (!waiting.told)
      log.warn("shadow thread has not answered a pass: passes go on without waiting", { waited });
    waiting.told = true;
    return true;
  };

  /** Hands each watched pod's output to the thread, then ends the pass there. */
  const pass = async () => {
    if (!answered()) return;
    for (const [key, job] of [...jobs]) {
      if (busy.has(key)) continue;
      for (const pod of job.observation.pods) await readPod(key, job, pod.name);
    }
    passes += 1;
    waiting = { pass: passes, since: clock(), told: false };
    send({ type: "tick", pass: passes });
  };

  const tick = (): Promise<void> => {
    running ??= pass()
      .then(async () => {
        // What the thread answered so far is recorded before the pass ends (in this thread: all of it).
        await Promise.all([...recording]);
      })
      .finally(() => {
        running = null;
      });
    return running;
  };

  return {
    observe,
    forget: (ref) => {
      const key = jobKey(ref);
      if (jobs.delete(key)) send({ type: "forget", key });
    },
    tick,
    stop: () => {
      if (timer) clearInterval(timer);
      timer = null;
      jobs.clear();
      evaluator.stop();
    },
  };
}
