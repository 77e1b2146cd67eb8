import path from "node:path";
import { aggregateRanks, rankLogFault, WAITING_RANK } from "../domain/log-rules/aggregate";
import type { LogMonitoringRule } from "../domain/log-rules/log-rule.schema";
import { createRankLogMonitor, type RankLogMonitor } from "../domain/log-rules/rank-monitor";
import type { Logger } from "../log";
import { type ArrivalRecorder, createArrivalRecorder } from "./arrivals";
import { pruneAgentRuns, pruneAttempts } from "./attempt-retention";
import type { TeeMode } from "./cli-values";
import type { ProcessEnv } from "./env";
import type { ManagedProcess, StreamName } from "./managed-process";
import { createRankRecord, type RankRecord } from "./rank-record";
import { createRuleQueue, type RuleQueue } from "./rule-queue";
import type { Command } from "./script-command";
import type { Fault } from "./state";
import { globalRank, type Rendezvous, type WorkerGroup } from "./worker-env";
import { WORKER_FAULT } from "./worker-faults";

/** The shared state of one attempt (one /start) and the small operations on it; see launcher.ts. */

export type LauncherSettings = WorkerGroup & {
  /** `<log-dir>/<runId>_<agentId>`; attempts go to `attempt_<n>/<local rank>/` below it. */
  runDir: string;
  monitorIntervalMs: number;
  shutdownSignal: NodeJS.Signals;
  shutdownTimeoutMs: number;
  train: Command;
  preTrain: Hook | null;
  postTrain: Hook | null;
  tee: TeeMode;
  /** Niceness of worker processes (0: as the agent). */
  workerNice: number;
  /** Every local rank's rules can fault the attempt (opt-in); else local rank 0's only, as hyperpodrun. */
  logRulesAllRanks: boolean;
};

/** A pre/post-train script: its path (for messages) and how it is run. */
export type Hook = { script: string; command: Command };

export type OutputSink = { write(stream: StreamName, text: string): void };

export type AttemptEvents = {
  /** `localRank`: the fault is that rank's own and it alone is being restarted (keepRanksOnFault); else null. */
  onFault(fault: Fault, localRank: number | null): void;
  onCompleted(): void;
};

export type AttemptInput = {
  settings: LauncherSettings;
  rendezvous: Rendezvous;
  rules: readonly LogMonitoringRule[];
  /** 0 for this agent's first /start. */
  attempt: number;
  deps: { baseEnv: ProcessEnv; logger: Logger; now: () => number; output: OutputSink };
  events: AttemptEvents;
  /**
   * Asked at a rank's own fault (its process ended, or a rule on it fired): true restarts that rank alone
   * (its process stopped, a new one started in its place) and keeps the others running; a second fault
   * before `rearm()` is the attempt's as usual. Default: every fault is the attempt's.
   */
  keepRanksOnFault?: () => boolean;
};

export type AttemptContext = {
  readonly input: AttemptInput;
  readonly records: readonly RankRecord[];
  readonly attemptDir: string;
  /** When each rank's lines arrived, beside its stdout.log (arrivals.ts). */
  readonly arrivals: ArrivalRecorder;
  readonly processes: Set<ManagedProcess>;
  /** Runs output lines through the ranks' rules within a time budget (rule-queue.ts). */
  readonly ruleQueue: RuleQueue<RankRecord>;
  stopSignal: NodeJS.Signals | null;
  /** A fault stopped every worker of the attempt. */
  faulted: boolean;
  /** The local rank restarted alone for its fault, since the attempt started or was re-armed. */
  rankFault: number | null;
  /** Each local rank's current process: resolves once it exited and its exit was recorded. */
  readonly running: Map<number, Promise<void>>;
  /** Processes stopped on purpose while the attempt runs on (a rank restarted alone): their exit is no fault. */
  readonly retiring: Set<ManagedProcess>;
  /** Stops the rank's process if it runs and starts a new one in its place (launcher.ts). */
  readonly restartRank: (record: RankRecord) => void;
  ticker: NodeJS.Timeout | null;
  killTimers: NodeJS.Timeout[];
};

function buildMonitor(input: AttemptInput): { monitor: RankLogMonitor | null; error: string | null } {
  if (input.rules.length === 0) return { monitor: null, error: null };
  const created = createRankLogMonitor({ rules: input.rules, now: input.deps.now });
  if (!created.ok) return { monitor: null, error: created.reason };
  // The rules' clocks start when the worker does (resume() at spawn), not during the pre-train script.
  created.monitor.suspend();
  return { monitor: created.monitor, error: null };
}

/** A running rank silent for longer than this is suspect: the shortest recurring window of the rules. */
function silenceWindowMs(rules: readonly LogMonitoringRule[]): number | null {
  const windows = rules.flatMap((rule) => rule.expectedRecurringFrequencyInSeconds ?? []);
  return windows.length === 0 ? null : Math.min(...windows) * 1000;
}

/** Keeps the pod's attempt logs bounded (attempt-retention.ts); a failure to prune is logged, never fatal. */
function pruneOldAttempts(input: AttemptInput): void {
  const { runDir, runId } = input.settings;
  try {
    pruneAttempts(runDir, input.attempt);
    if (input.attempt === 0) pruneAgentRuns(runDir, runId);
  } catch (error) {
    input.deps.logger.warn("could not prune old attempt logs", { runDir, error: String(error) });
  }
}

export function createAttemptContext(
  input: AttemptInput,
  restartRank: (ctx: AttemptContext, record: RankRecord) => void,
): { ctx: AttemptContext; ruleError: string | null } {
  const { settings, rendezvous, attempt } = input;
  let ruleError: string | null = null;
  const silenceMs = silenceWindowMs(input.rules);
  const records = Array.from({ length: settings.nprocPerNode }, (_, localRank) => {
    const { monitor, error } = buildMonitor(input);
    ruleError ??= error;
    const rank = globalRank({ rendezvous, group: settings, localRank });
    const watched = settings.logRulesAllRanks || localRank === 0;
    return createRankRecord({ localRank, rank, restarts: attempt, monitor, watched, silenceMs });
  });
  pruneOldAttempts(input);
  const attemptDir = path.join(settings.runDir, `attempt_${attempt}`);
  const ctx: AttemptContext = {
    input,
    records,
    attemptDir,
    arrivals: createArrivalRecorder({ attemptDir, logger: input.deps.logger }),
    processes: new Set(),
    ruleQueue: createRuleQueue<RankRecord>({
      events: {
        onDone: (record, state) => {
          record.logState = state;
          checkRules(ctx);
        },
        onOverBudget: ({ rule, spentMs, skipped }) =>
          input.deps.logger.warn(`rule ${rule} exceeded the per-line budget`, {
            attempt,
            spentMs,
            skippedRules: skipped,
          }),
        onBehind: ({ queued }) =>
          input.deps.logger.warn("log rules are behind: lines past the queue are not run through the rules", {
            attempt,
            queued,
          }),
      },
    }),
    stopSignal: null,
    faulted: false,
    rankFault: null,
    running: new Map(),
    retiring: new Set(),
    restartRank: (record) => restartRank(ctx, record),
    ticker: null,
    killTimers: [],
  };
  return { ctx, ruleError };
}

/**
 * In-process restart: log monitoring starts when the ranks are released from the barrier with the rules
 * of that /start, and stops (the rules dropped) when they are paused (HyperPod's start_log_monitoring /
 * stop_log_monitoring(clear=True)). Returns the rules' load error, if any.
 */
export function replaceRules(ctx: AttemptContext, rules: readonly LogMonitoringRule[] | null): string | null {
  const built = rules === null ? { monitor: null, error: null } : buildMonitor({ ...ctx.input, rules });
  if (built.error !== null) return built.error;
  for (const record of ctx.records) {
    record.monitor?.suspend();
    record.monitor = rules === null ? null : buildMonitor({ ...ctx.input, rules }).monitor;
    record.logState = WAITING_RANK;
    if (record.state === "running" && record.monitor !== null) {
      record.monitor.resume();
      ctx.arrivals.of(record.localRank).rulesStart(ctx.input.deps.now());
    }
  }
  return null;
}

export const isStopping = (ctx: AttemptContext): boolean => ctx.stopSignal !== null;

export function stopTicker(ctx: AttemptContext): void {
  if (ctx.ticker !== null) clearInterval(ctx.ticker);
  ctx.ticker = null;
}

export function killAll(ctx: AttemptContext): void {
  for (const child of ctx.processes) child.signal("SIGKILL");
}

/** Sends `signal` to every process group of the attempt now, SIGKILL after `timeoutMs`. */
export function stopProcesses(
  ctx: AttemptContext,
  input: { signal: NodeJS.Signals; timeoutMs: number },
): void {
  ctx.stopSignal = input.signal;
  stopTicker(ctx);
  for (const record of ctx.records) record.monitor?.suspend();
  for (const child of ctx.processes) child.signal(input.signal);
  ctx.killTimers.push(setTimeout(() => killAll(ctx), input.timeoutMs));
}

/**
 * Once every process has exited: drop the SIGKILL timers, kill whatever is left in their groups, and mark
 * ranks that never got started (stopped or faulted during the pre-train script) as stopped.
 */
export function settle(ctx: AttemptContext): void {
  for (const timer of ctx.killTimers) clearTimeout(timer);
  ctx.killTimers = [];
  if (!isStopping(ctx)) return;
  killAll(ctx);
  for (const record of ctx.records) if (record.state === "starting") record.state = "stopped";
}

/**
 * Reports the first fault of the attempt, then stops every worker (shutdown signal, SIGKILL later); or, for
 * a rank's own fault where the agent keeps ranks (keepRanksOnFault), reports it with the rank and
 * restarts that rank alone (restartRank, launcher.ts).
 */
export function raiseFault(ctx: AttemptContext, fault: Fault, record: RankRecord | null = null): void {
  if (ctx.faulted || isStopping(ctx)) return;
  if (record !== null && ctx.rankFault === null && ctx.input.keepRanksOnFault?.() === true) {
    ctx.rankFault = record.localRank;
    ctx.input.events.onFault(fault, record.localRank);
    ctx.restartRank(record);
    return;
  }
  ctx.faulted = true;
  ctx.input.events.onFault(fault, null);
  const { shutdownSignal, shutdownTimeoutMs } = ctx.input.settings;
  stopProcesses(ctx, { signal: shutdownSignal, timeoutMs: shutdownTimeoutMs });
}

export function ruleLoadFault(ctx: AttemptContext, reason: string): Fault {
  return {
    reason: WORKER_FAULT,
    message: `Failed to load Log Monitoring Configuration: ${reason}`,
    at: ctx.input.deps.now(),
  };
}

/**
 * Faults the attempt if the watched local ranks' rule states, combined as the agent does, are
 * SLOW/HANGING/FAULTED. Watched: local rank 0 (hyperpodrun), or every rank with logRulesAllRanks.
 */
export function checkRules(ctx: AttemptContext): void {
  if (ctx.faulted || isStopping(ctx)) return;
  const watched = ctx.records.filter((record) => record.watched);
  const fault = rankLogFault(aggregateRanks(watched.map((record) => record.logState)));
  if (fault === null) return;
  // The rank whose state won (the first one in a fault state), whose own fault this is.
  const culprit = watched.find((record) => rankLogFault(record.logState) !== null) ?? null;
  raiseFault(ctx, { ...fault, at: ctx.input.deps.now() }, culprit);
}

const TEE_STREAMS: Record<TeeMode, readonly StreamName[]> = {
  none: [],
  stdout: ["stdout"],
  stderr: ["stderr"],
  both: ["stdout", "stderr"],
};

/** torchrun's `--tee`: copies a line to the agent's own output as `[default<local rank>]:<line>`. */
export function teeLine(
  ctx: AttemptContext,
  input: { prefix: string; line: string; stream: StreamName },
): void {
  if (!TEE_STREAMS[ctx.input.settings.tee].includes(input.stream)) return;
  ctx.input.deps.output.write(input.stream, `[${input.prefix}]:${input.line}\n`);
}
