import {
  createRuleQueue,
  DEFAULT_RULE_BUDGET,
  type RuleBudget,
  type RuleQueue,
} from "@/server/agent/rule-queue";
import { aggregateRanks, isFaultState, type RankLogState } from "@/server/domain/log-rules/aggregate";
import type { LogMonitoringRule } from "@/server/domain/log-rules/log-rule.schema";
import { MAX_LINE_CHARS } from "@/server/domain/log-rules/pattern";
import { createRankLogMonitor, type RankLogMonitor } from "@/server/domain/log-rules/rank-monitor";
import { isWatched, lastLines, linesAfter, parseRankLine } from "./output";
import type { ShadowFault } from "./would-do";

/**
 * Where shadow rules run (issue 34: a job's shadow rules, on the operator's own event loop, held /healthz
 * for 12-35 s and delayed another job's recovery by 15 s). The engine holds each watched job's monitors
 * and judges the lines the operator's thread reads from the pods' output; it runs in the shadow thread
 * (thread-main.ts), never on the reconcile path. A shadow rule costs what an enforced rule costs in the
 * agent, by the same code:
 * - the rule limits are the spec's (shadow-annotation.ts drops a rule past them, and submit says so), and
 *   every pattern sees at most its share of MAX_LINE_CHARS (pattern.ts), so one match is bounded;
 * - lines go through the agent's rule queue (server/agent/rule-queue.ts), one per job and attempt: the
 *   same per-line budget (a rule past it is reported once, the rules after it count the line as not
 *   matched), the same time slices with pauses between them, and the same bound on waiting lines (a line
 *   past it is not judged; reported once). One job's costly rules thus cannot hold the lines of another
 *   job's queue for more than a slice.
 * What it finds goes out as messages (FromShadowEngine): a pod whose watched ranks turn HANGING, SLOW or
 * FAULTED, a watch that read no rank line, and each budget report; the operator's thread records them.
 */

export type ShadowPod = { name: string; groupRank: number; node: string | null };

export type ToShadowEngine =
  | {
      type: "watch";
      key: string;
      /** The job's uid, attempt and rules: a new identity starts the watch afresh. */
      identity: string;
      rules: LogMonitoringRule[];
      allRanks: boolean;
      ranksPerNode: number;
      pods: ShadowPod[];
    }
  | { type: "forget"; key: string }
  /** A pod's output as the back end answered it (its last lines). */
  | { type: "read"; key: string; identity: string; pod: string; text: string }
  /** The end of a pass: every monitor evaluates "no new line" (the hang windows); answered by `ticked`. */
  | { type: "tick"; pass: number }
  | { type: "stop" };

export type FromShadowEngine =
  | { type: "fault"; key: string; identity: string; fault: ShadowFault }
  | { type: "silent"; key: string; identity: string }
  | { type: "overBudget"; key: string; identity: string; rule: string; spentMs: number; skipped: number }
  | { type: "behind"; key: string; identity: string; queued: number }
  | { type: "invalid"; key: string; identity: string; reason: string }
  /** `busy`: the jobs whose queue holds BUSY_LINES or more: their next lines would wait long or be dropped. */
  | { type: "ticked"; pass: number; busy: string[] };

/** Lines waiting in a job's queue past which the operator's thread leaves the job's output unread a pass. */
export const BUSY_LINES = DEFAULT_RULE_BUDGET.maxQueued / 2;

/** How long a watch may read no watched rank line before it says so. */
export const SILENT_MS = 60_000;

type PodWatch = ShadowPod & {
  monitors: Map<number, RankLogMonitor>;
  /** Each local rank's report after its latest line or tick. */
  states: Map<number, RankLogState>;
  seen: string[] | null;
  faulted: boolean;
};

type Owner = { pod: PodWatch; localRank: number };

type JobWatch = {
  key: string;
  identity: string;
  rules: LogMonitoringRule[];
  allRanks: boolean;
  ranksPerNode: number;
  pods: Map<string, PodWatch>;
  queue: RuleQueue<Owner>;
  since: number;
  heard: boolean;
  toldSilent: boolean;
  toldBusy: boolean;
  /** The rules did not compile (they did at submit): said once, nothing judged. */
  invalid: boolean;
};

export type ShadowEngine = {
  receive(message: ToShadowEngine): void;
  /** Lines waiting in every job's queue. */
  pending(): number;
};

const splitLines = (text: string) => {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
};

export function createShadowEngine(deps: {
  emit: (message: FromShadowEngine) => void;
  clock?: () => number;
  budget?: RuleBudget;
}): ShadowEngine {
  const clock = deps.clock ?? Date.now;
  const { emit } = deps;
  const jobs = new Map<string, JobWatch>();

  const judge = (job: JobWatch, pod: PodWatch) => {
    const ranks = [...pod.states.entries()];
    const state = aggregateRanks(ranks.map(([, rank]) => rank));
    const faulted = isFaultState(state.state);
    if (!pod.faulted && isFaultState(state.state)) {
      const worst = ranks.find(([, rank]) => rank.state === state.state) ?? ranks[0];
      const rank = pod.groupRank * job.ranksPerNode + (worst?.[0] ?? 0);
      const fault: ShadowFault = {
        pod: pod.name,
        node: pod.node,
        rank,
        state: state.state,
        rules: state.rules,
        at: clock(),
      };
      emit({ type: "fault", key: job.key, identity: job.identity, fault });
    }
    pod.faulted = faulted;
  };

  const monitorFor = (job: JobWatch, pod: PodWatch, localRank: number): RankLogMonitor | null => {
    const existing = pod.monitors.get(localRank);
    if (existing || job.invalid) return existing ?? null;
    const created = createRankLogMonitor({ rules: job.rules, now: clock });
    if (!created.ok) {
      job.invalid = true;
      emit({ type: "invalid", key: job.key, identity: job.identity, reason: created.reason });
      return null;
    }
    pod.monitors.set(localRank, created.monitor);
    return created.monitor;
  };

  const newJob = (message: Extract<ToShadowEngine, { type: "watch" }>): JobWatch => {
    const { key, identity } = message;
    return {
      key,
      identity,
      rules: message.rules,
      allRanks: message.allRanks,
      ranksPerNode: message.ranksPerNode,
      pods: new Map(),
      queue: createRuleQueue<Owner>({
        budget: deps.budget ?? DEFAULT_RULE_BUDGET,
        events: {
          onDone: ({ pod, localRank }, state) => {
            // A line of a watch since replaced (a new attempt) or forgotten changes nothing.
            if (jobs.get(key)?.identity !== identity) return;
            pod.states.set(localRank, state);
            const job = jobs.get(key);
            if (job) judge(job, pod);
          },
          onOverBudget: (report) => emit({ type: "overBudget", key, identity, ...report }),
          onBehind: ({ queued }) => emit({ type: "behind", key, identity, queued }),
        },
      }),
      since: clock(),
      heard: false,
      toldSilent: false,
      toldBusy: false,
      invalid: false,
    };
  };

  /** A watch let go: its monitors stop, so the lines its queue still holds cost nothing. */
  const drop = (key: string) => {
    const job = jobs.get(key);
    if (!job) return;
    jobs.delete(key);
    for (const pod of job.pods.values()) for (const monitor of pod.monitors.values()) monitor.suspend();
  };

  const watch = (message: Extract<ToShadowEngine, { type: "watch" }>) => {
    let job = jobs.get(message.key);
    if (job?.identity !== message.identity) {
      drop(message.key);
      job = newJob(message);
      jobs.set(message.key, job);
    }
    job.ranksPerNode = message.ranksPerNode;
    for (const pod of message.pods) {
      if (job.pods.has(pod.name)) continue;
      job.pods.set(pod.name, { ...pod, monitors: new Map(), states: new Map(), seen: null, faulted: false });
    }
  };

  /** One line of the pod's output: a watched rank's goes to the job's rule queue. */
  const take = (job: JobWatch, pod: PodWatch, line: string) => {
    const parsed = parseRankLine(line);
    if (!parsed || !isWatched(parsed.localRank, job.allRanks)) return;
    job.heard = true;
    const monitor = monitorFor(job, pod, parsed.localRank);
    // No pattern sees past MAX_LINE_CHARS (+1 keeps "this line was cut"): the queue holds no more.
    const text = parsed.text.slice(0, MAX_LINE_CHARS + 1);
    if (monitor) job.queue.push({ pod, localRank: parsed.localRank }, monitor, text);
  };

  const read = (message: Extract<ToShadowEngine, { type: "read" }>) => {
    const job = jobs.get(message.key);
    const pod = job?.pods.get(message.pod);
    if (!job || !pod || job.identity !== message.identity) return;
    const lines = splitLines(message.text);
    // The first read of an attempt starts at its end: what the pod wrote before is an earlier attempt's.
    const fresh = pod.seen === null ? [] : linesAfter(pod.seen, lines);
    pod.seen = lastLines(lines);
    monitorFor(job, pod, 0);
    for (const line of fresh) take(job, pod, line);
  };

  /**
   * The agent puts its ranks' lines in the pod's output only when it tees them (`--tee 3`); without them a
   * shadow has nothing to judge, which is said once per attempt rather than left to look like a quiet job.
   */
  const tellIfSilent = (job: JobWatch) => {
    if (job.heard || job.toldSilent || clock() - job.since < SILENT_MS) return;
    job.toldSilent = true;
    emit({ type: "silent", key: job.key, identity: job.identity });
  };

  /** Whether the job's lines wait; a busy job's output is left unread (the watcher), which is said once. */
  const isBusy = (job: JobWatch): boolean => {
    const queued = job.queue.pending();
    if (queued < BUSY_LINES) return false;
    if (!job.toldBusy) emit({ type: "behind", key: job.key, identity: job.identity, queued });
    job.toldBusy = true;
    return true;
  };

  const tick = (pass: number) => {
    for (const job of jobs.values()) {
      tellIfSilent(job);
      for (const pod of job.pods.values()) {
        for (const [localRank, monitor] of pod.monitors) pod.states.set(localRank, monitor.tick());
        judge(job, pod);
      }
    }
    const busy = [...jobs.values()].filter(isBusy).map((job) => job.key);
    emit({ type: "ticked", pass, busy });
  };

  const pending = () => [...jobs.values()].reduce((sum, job) => sum + job.queue.pending(), 0);

  return {
    receive(message) {
      switch (message.type) {
        case "watch":
          return watch(message);
        case "forget":
          return drop(message.key);
        case "read":
          return read(message);
        case "tick":
          return tick(message.pass);
        case "stop":
          for (const key of [...jobs.keys()]) drop(key);
          return;
      }
    },
    pending,
  };
}
