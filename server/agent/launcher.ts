import path from "node:path";
import { WAITING_RANK } from "../domain/log-rules/aggregate";
import type { LogMonitoringRule } from "../domain/log-rules/log-rule.schema";
import {
  type AttemptContext,
  type AttemptInput,
  checkRules,
  createAttemptContext,
  isStopping,
  killAll,
  raiseFault,
  replaceRules,
  ruleLoadFault,
  settle,
  stopProcesses,
  stopTicker,
  teeLine,
} from "./attempt-context";
import { type ManagedProcess, type ProcessExit, type SpawnInput, spawnManaged } from "./managed-process";
import { isFailedExit, type RankRecord, recordOutput, resetForNewProcess, tickRank } from "./rank-record";
import { groupEnv, workerEnv } from "./worker-env";
import { type HookPhase, hookFault, workerCrashFault } from "./worker-faults";

/**
 * One attempt of the worker group (what a /start launches): the pre-train script, then nprocPerNode
 * workers, then (if every worker exited 0) the post-train script and `onCompleted`. The first fault (a
 * worker exiting non-zero or by a signal, a log rule going SLOW/HANGING/FAULTED on a watched local rank, a
 * failing pre/post-train script) is reported through `onFault` at once, then every worker is stopped with
 * the shutdown signal and SIGKILLed after the shutdown timeout. Exits after a stop was requested are
 * "stopped", never faults. Every local rank's output goes through its rank's log rules; only the watched
 * ranks' rules (local rank 0, or all with --log-rules-all-ranks) can fault the attempt.
 *
 * An agent that keeps ranks (`keepRanksOnFault`: the in-process agent with --early-worker-restart) has a
 * rank's own fault (its crash, its rules) restart that rank alone: its process is stopped if it still runs,
 * a new one starts in its place (output appended to the same log) and the others run on. Once per
 * `rearm()`: a second fault before it is the attempt's, as above.
 */

export type { AttemptEvents, AttemptInput, Hook, LauncherSettings, OutputSink } from "./attempt-context";

export type Attempt = {
  readonly number: number;
  readonly ranks: readonly RankRecord[];
  /** Stops whatever runs (signal now, SIGKILL after timeoutMs); resolves once every process has exited. */
  stop(input: { signal: NodeJS.Signals; timeoutMs: number }): Promise<void>;
  /** SIGKILL to every process group of the attempt, synchronously (for the agent's own exit). */
  killAll(): void;
  /** In-process restart: watch these rules from now on (null: none); returns their load error. */
  setRules(rules: readonly LogMonitoringRule[] | null): string | null;
  /** Whether a fault (a crash, a rule) already stopped this attempt's workers. */
  faulted(): boolean;
  /** A rank's next own fault restarts it alone again (keepRanksOnFault), e.g. once the ranks run again. */
  rearm(): void;
};

function onWorkerExit(
  ctx: AttemptContext,
  record: RankRecord,
  exit: ProcessExit,
  child: ManagedProcess | null,
): void {
  record.exitCode = exit.code;
  record.signal = exit.signal;
  if (isStopping(ctx) || (child !== null && ctx.retiring.has(child))) {
    record.state = "stopped";
    return;
  }
  if (!isFailedExit(exit)) {
    record.state = "exited";
    record.monitor?.suspend();
    return;
  }
  record.state = "crashed";
  const pid = record.process?.pid ?? null;
  raiseFault(ctx, workerCrashFault({ localRank: record.localRank, pid, exit }), record);
}

/** Spawns and tracks a process; one that cannot be started (e.g. its log folder cannot be made) is a failed exit. */
async function start(
  ctx: AttemptContext,
  input: SpawnInput,
): Promise<{ child: ManagedProcess | null; exited: Promise<ProcessExit> }> {
  try {
    const child = await spawnManaged(input);
    ctx.processes.add(child);
    if (ctx.stopSignal !== null) child.signal(ctx.stopSignal);
    return { child, exited: child.exited };
  } catch (error) {
    const exit = { code: 1, signal: null, at: input.now(), spawnError: String(error), lastStderrLine: null };
    return { child: null, exited: Promise.resolve(exit) };
  }
}

async function spawnWorker(ctx: AttemptContext, record: RankRecord): Promise<void> {
  const { settings, rendezvous, deps } = ctx.input;
  const arrivals = ctx.arrivals.of(record.localRank);
  const { child, exited } = await start(ctx, {
    command: settings.train,
    nice: settings.workerNice,
    env: workerEnv({ base: deps.baseEnv, rendezvous, group: settings, localRank: record.localRank }),
    logDir: path.join(ctx.attemptDir, String(record.localRank)),
    onLine: (line, stream) => {
      const at = deps.now();
      teeLine(ctx, { prefix: `default${record.localRank}`, line, stream });
      recordOutput(record, { line, at });
      arrivals.line(stream, at);
      if (record.monitor !== null) ctx.ruleQueue.push(record, record.monitor, line);
    },
    logger: deps.logger,
    now: deps.now,
  });
  record.process = child;
  if (child !== null) {
    record.state = "running";
    record.monitor?.resume();
    // Where the rank's rules start counting (their start cut-off), dated as the agent's clock.
    arrivals.rulesStart(deps.now());
  }
  const exit = await exited;
  if (child !== null) arrivals.ended(exit.at);
  onWorkerExit(ctx, record, exit, child);
}

/**
 * The rank restarted alone (keepRanksOnFault): its rules dropped now (a fired rule must not fire again),
 * its process stopped if it still runs (shutdown signal, SIGKILL after the shutdown timeout), and once it
 * has exited a new process in its place, unless the attempt is stopping by then.
 */
function restartRank(ctx: AttemptContext, record: RankRecord): void {
  const { shutdownSignal, shutdownTimeoutMs } = ctx.input.settings;
  record.monitor?.suspend();
  record.monitor = null;
  record.logState = WAITING_RANK;
  const old = record.process;
  if (old !== null && record.state === "running") {
    ctx.retiring.add(old);
    old.signal(shutdownSignal);
    ctx.killTimers.push(setTimeout(() => old.signal("SIGKILL"), shutdownTimeoutMs));
  }
  const exited = ctx.running.get(record.localRank) ?? Promise.resolve();
  ctx.running.set(
    record.localRank,
    exited.then(() => {
      if (old !== null) {
        ctx.retiring.delete(old);
        ctx.processes.delete(old);
      }
      if (isStopping(ctx)) return;
      ctx.input.deps.logger.info("restarting a rank alone", { localRank: record.localRank });
      resetForNewProcess(record);
      return spawnWorker(ctx, record);
    }),
  );
}

/** Until every local rank's current process has exited (a rank restarted meanwhile is waited for too). */
async function allExited(ctx: AttemptContext): Promise<void> {
  for (;;) {
    const current = [...ctx.running.values()];
    await Promise.all(current);
    if ([...ctx.running.values()].every((exited, i) => exited === current[i])) return;
  }
}

async function runHook(ctx: AttemptContext, phase: HookPhase): Promise<boolean> {
  const { settings, rendezvous, deps } = ctx.input;
  const hook = phase === "pre_train" ? settings.preTrain : settings.postTrain;
  if (hook === null || isStopping(ctx)) return !isStopping(ctx);
  const { child, exited } = await start(ctx, {
    command: hook.command,
    env: groupEnv({ base: deps.baseEnv, rendezvous, group: settings }),
    logDir: path.join(ctx.attemptDir, phase),
    onLine: (line, stream) => teeLine(ctx, { prefix: phase, line, stream }),
    logger: deps.logger,
    now: deps.now,
  });
  const exit = await exited;
  if (isStopping(ctx)) return false;
  if (!isFailedExit(exit)) return true;
  raiseFault(ctx, hookFault({ phase, script: hook.script, pid: child?.pid ?? null, exit }));
  return false;
}

function startTicker(ctx: AttemptContext): void {
  if (isStopping(ctx) || ctx.records.every((record) => record.monitor === null)) return;
  ctx.ticker = setInterval(() => {
    const now = ctx.input.deps.now();
    for (const record of ctx.records) tickRank(record, now);
    checkRules(ctx);
  }, ctx.input.settings.monitorIntervalMs);
}

async function run(ctx: AttemptContext): Promise<void> {
  if (!(await runHook(ctx, "pre_train"))) return;
  for (const record of ctx.records) ctx.running.set(record.localRank, spawnWorker(ctx, record));
  startTicker(ctx);
  await allExited(ctx);
  stopTicker(ctx);
  if (isStopping(ctx) || !(await runHook(ctx, "post_train"))) return;
  if (!isStopping(ctx)) ctx.input.events.onCompleted();
}

export function launchAttempt(input: AttemptInput): Attempt {
  const { ctx, ruleError } = createAttemptContext(input, restartRank);
  const failed = (error: unknown) => {
    input.deps.logger.error("attempt failed", { attempt: input.attempt, error: String(error) });
    raiseFault(ctx, {
      reason: "WorkerFault",
      message: `Agent error: ${String(error)}`,
      at: input.deps.now(),
    });
  };
  const done = (async () => {
    // The workers are forked on a later turn of the event loop, once the /start that launched this attempt
    // has been answered: forking 8 workers takes this process tens of milliseconds, and the operator waits
    // for every agent's answer before it counts the restart as done.
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (ruleError !== null) return raiseFault(ctx, ruleLoadFault(ctx, ruleError));
    return run(ctx);
  })()
    .catch(failed)
    .finally(() => {
      settle(ctx);
      void ctx.arrivals.closeAll();
    });
  return {
    number: input.attempt,
    ranks: ctx.records,
    stop: async (stop) => {
      stopProcesses(ctx, stop);
      await done;
      settle(ctx);
    },
    killAll: () => killAll(ctx),
    setRules(rules) {
      const error = replaceRules(ctx, rules);
      if (error === null && rules !== null && ctx.ticker === null) startTicker(ctx);
      return error;
    },
    faulted: () => ctx.faulted || isStopping(ctx),
    rearm() {
      ctx.rankFault = null;
    },
  };
}
