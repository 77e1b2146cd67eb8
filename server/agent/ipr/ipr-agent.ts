import type { StartRequest, StopRequest, UpdateRequest } from "@/server/domain/agent-api/protocol";
import type { LogMonitoringRule } from "../../domain/log-rules/log-rule.schema";
import {
  type Agent,
  type AgentDeps,
  assignmentOf,
  type CommandResult,
  conflict,
  launcherSettings,
  rendezvousOf,
} from "../agent-parts";
import { type Attempt, launchAttempt } from "../launcher";
import { createAgentMetrics } from "../metrics";
import { createAgentStateMachine, type Fault, IPR_TRANSITIONS } from "../state";
import { type Assignment, buildStatus, EMPTY_ASSIGNMENT } from "../status";
import type { Rendezvous } from "../worker-env";
import { WORKER_FAULT } from "../worker-faults";
import { createIpcDispatch } from "./dispatch";
import { type IpcServer, socketPathFor, startIpcServer } from "./socket-server";
import { workerEnvsFor } from "./worker-envs";
import { createIpcWorkerGroup, restartModeOf } from "./worker-group";

/**
 * The in-process-restart agent (`--inprocess-restart`), following HyperPod's IPRHyperPodElasticAgent
 * (elastic_agent/ipr_hyperpod_elastic_agent.py):
 * - the workers start as soon as the agent does and run to the re-executable code block (RCB) barrier; the
 *   agent is READY only once every local rank reported `at_rcb_barrier`;
 * - /start releases the barrier: `job_start` {worker_envs, aggregate_worker_data} to every local rank
 *   (RANK, WORLD_SIZE, MASTER_ADDR… of this run; the operator's rankIps and worker_data), then log
 *   monitoring starts with the /start's rules;
 * - /stop (restart_mode absent or "ipr") pauses: `job_fault` {restart_count} to every rank, which abandon
 *   the block and come back to the barrier with their process and memory; READY once all are there.
 *   A node whose workers already died (a crash, a log rule), a /stop asking `process_level_restart`, a
 *   rank that disconnects while pausing, or --inprocess-timeout passing first: a process-level restart
 *   instead (workers killed and started again: INIT, READY at the barrier);
 * - a rank may report a fault itself (`job_fault` from the rank): FAULTED with its reason, processes kept.
 * /stop {is_graceful: true} stops the workers with SIGUSR1 and starts them again (elastic scaling).
 *
 * Rebound, beyond HyperPod, opt-in with `--early-worker-restart` (same wire, same states): when a rank
 * running the block fails on its own (its worker ends, or a log rule on it fires), that rank alone is
 * restarted at once (its process stopped if it still runs, a new one started in its place) while the agent
 * reports FAULTED and the operator decides; the node's other ranks keep their processes, and the operator's
 * /stop pauses them at the barrier like every other node's. HyperPod's agent restarts every worker of such
 * a node on the /stop; here the failed rank's new process is starting or at the barrier already by then,
 * and the others are not started again, so the agent is READY sooner. Once per fault: a second failure
 * before the /stop (the new process too) has the /stop restart every worker of the node as usual, so a
 * crash loop still waits on the operator's back-off. A fault that is not one rank's (a pre/post-train
 * script) restarts every worker early instead. Until the /stop, /status keeps showing the ranks as they
 * were at the fault (the operator names the faulted ranks from them). Without the flag, as hyperpodrun:
 * the failed workers stay down, FAULTED, until the /stop.
 */

type StopKind =
  | { kind: "pause" }
  | { kind: "restart"; signal: NodeJS.Signals | null; timeoutMs: number | null; why: string };

/**
 * What a /stop does (HyperPod's set_restart_mode and _pause_or_stop_workers): pause the ranks at the barrier,
 * unless the workers already ended, the operator asked for a process-level restart, or (Rebound, for
 * elastic scaling) a graceful stop: SIGUSR1, then the workers start again.
 */
export function stopKind(input: { request: StopRequest; workersEnded: boolean }): StopKind {
  const { request, workersEnded } = input;
  const timeoutMs = request.timeout == null ? null : request.timeout * 1000;
  if (request.is_graceful) return { kind: "restart", signal: "SIGUSR1", timeoutMs, why: "graceful /stop" };
  const mode = restartModeOf(request.restart_mode ?? "ipr");
  if (mode === "process_level_restart")
    return { kind: "restart", signal: null, timeoutMs, why: `/stop (${mode})` };
  if (workersEnded) return { kind: "restart", signal: null, timeoutMs, why: "/stop after the workers ended" };
  return { kind: "pause" };
}

/** Before its first /start the agent knows no rank: HyperPod's rendezvous has group rank -1 then. */
const NO_RENDEZVOUS: Rendezvous = { groupRank: -1, nnodes: 1, masterAddr: "", masterPort: 0, faultCount: 0 };

export function createInProcessAgent(deps: AgentDeps): Agent {
  const { config, logger, now } = deps;
  const settings = launcherSettings(deps);
  const sm = createAgentStateMachine({ now, table: IPR_TRANSITIONS });
  const metrics = createAgentMetrics();
  const group = createIpcWorkerGroup(config.nprocPerNode);
  const socketPath = socketPathFor(process.pid);
  const shutdownTimeoutMs = config.shutdownTimeoutSeconds * 1000;
  let ipc: IpcServer | null = null;
  let attempt: Attempt | null = null;
  let attempts = 0;
  let rendezvous = NO_RENDEZVOUS;
  let latest: UpdateRequest | null = null;
  let rules: readonly LogMonitoringRule[] = [];
  let assignment: Assignment = EMPTY_ASSIGNMENT;
  let canStart = false;
  let priority = false;
  let pauseTimer: NodeJS.Timeout | null = null;
  let pausing = false;
  let restarting: Promise<void> | null = null;
  /**
   * The ranks as they were at a fault restarted early, shown until the operator's /stop; `localRank`: the
   * rank restarted alone, null: every worker of the node.
   */
  let early: { ranks: Attempt["ranks"]; localRank: number | null } | null = null;
  let shutdownDone: Promise<void> | null = null;
  let shutdownFinished = () => {};
  const shutdownFinishedPromise = new Promise<void>((resolve) => {
    shutdownFinished = resolve;
  });

  const fault = (input: Fault) => {
    if (sm.transition("FAULTED", input).ok) {
      metrics.recordFault(input.reason);
      logger.warn("fault", { reason: input.reason, message: input.message });
    }
  };
  const endPause = () => {
    if (pauseTimer !== null) clearTimeout(pauseTimer);
    pauseTimer = null;
    pausing = false;
  };

  const launchWorkers = () => {
    const number = attempts++;
    metrics.recordAttempt();
    group.reset(true);
    attempt = launchAttempt({
      settings,
      rendezvous,
      rules: [],
      attempt: number,
      deps: {
        baseEnv: { ...deps.baseEnv, HYPERPOD_ELASTICAGENT_SOCKET_SERVER_PATH: socketPath },
        logger,
        now,
        output: deps.output,
      },
      keepRanksOnFault: () => config.earlyWorkerRestart && sm.current() === "RUNNING" && !pausing,
      events: {
        onFault: (input, localRank) => onWorkerFault(number, input, localRank),
        onCompleted: () => {
          if (attempt?.number === number && sm.current() === "RUNNING") sm.transition("COMPLETED");
        },
      },
    });
  };

  /** HyperPod's _stop_workers: every worker stopped, INIT, the workers started again (READY at the barrier). */
  const processRestart = (
    stop: { signal: NodeJS.Signals; timeoutMs: number },
    why: string,
    options: { keepState?: boolean } = {},
  ): Promise<void> => {
    if (restarting !== null) return restarting;
    logger.info("process-level restart", { why });
    endPause();
    ipc?.clearClients();
    group.reset(true);
    priority = false;
    const stopping = attempt?.stop(stop) ?? Promise.resolve();
    restarting = stopping
      .catch((error: unknown) => logger.error("stopping workers failed", { error: String(error) }))
      .then(() => {
        restarting = null;
        if (sm.current() === "SHUTDOWN") return;
        if (!options.keepState) sm.transition("INIT");
        launchWorkers();
      });
    return restarting;
  };
  const plr = (why: string) =>
    processRestart({ signal: config.shutdownSignal, timeoutMs: shutdownTimeoutMs }, why);

  /** The failed node's workers start again now, the agent staying FAULTED until the operator's /stop. */
  const restartEarly = (why: string) => {
    early = { ranks: attempt?.ranks ?? [], localRank: null };
    const stop = { signal: config.shutdownSignal, timeoutMs: shutdownTimeoutMs };
    void processRestart(stop, `${why}: restarting the workers before the operator's /stop`, {
      keepState: true,
    });
  };

  /** The /stop after an early restart finds the workers ended again: every worker restarted, as usual. */
  const restartEndedAgain = (timeoutMs: number | null, why: string) =>
    void processRestart({ signal: config.shutdownSignal, timeoutMs: timeoutMs ?? shutdownTimeoutMs }, why);

  /**
   * The operator's /stop after an early restart: the new workers are what it would start, so they are kept
   * (INIT, READY once at the barrier), unless they ended too: then a process-level restart as usual.
   */
  const adoptEarlyRestart = (timeoutMs: number | null) => {
    early = null;
    void Promise.resolve(restarting).then(() => {
      if (sm.current() !== "STOPPING") return;
      if (attempt === null || attempt.faulted()) {
        restartEndedAgain(timeoutMs, "/stop after the early-restarted workers ended");
        return;
      }
      sm.transition("INIT");
      advance();
    });
  };

  /**
   * The launcher is restarting this rank alone (keepRanksOnFault): /status keeps the ranks as they are now,
   * and the rank's old connection and barrier state go (its new process connects and reports afresh).
   */
  const restartRankEarly = (localRank: number, why: string) => {
    early = { ranks: (attempt?.ranks ?? []).map((record) => ({ ...record })), localRank };
    ipc?.dropRank(localRank);
    group.resetRank(localRank);
    logger.info("restarting a rank alone before the operator's /stop", { localRank, why });
  };

  /**
   * The operator's /stop after a rank was restarted alone: the node's other ranks are paused as on any
   * node (the new process is where a pause puts them, on its way to the barrier or at it). A restart the
   * /stop asks for, or workers that ended again since: a process-level restart as usual.
   */
  const adoptRankRestart = (how: StopKind, localRank: number) => {
    early = null;
    if (attempt === null || attempt.faulted())
      restartEndedAgain(
        how.kind === "restart" ? how.timeoutMs : null,
        "/stop after a rank restarted alone, whose workers ended again",
      );
    else if (how.kind === "restart") restartAll(how);
    else pauseRanks(localRank);
  };

  function onWorkerFault(number: number, input: Fault, localRank: number | null): void {
    if (attempt?.number !== number) return;
    if (pausing) {
      void plr(`a worker ended while pausing: ${input.reason}`);
      return;
    }
    const state = sm.current();
    if (state === "RUNNING" || state === "INIT" || state === "READY") fault(input);
    if (state === "RUNNING") restartBeforeStop(input.reason, localRank);
  }

  /** --early-worker-restart: the rank alone (the launcher restarts it), or every worker of the node. */
  function restartBeforeStop(why: string, localRank: number | null): void {
    if (localRank !== null) restartRankEarly(localRank, why);
    else if (config.earlyWorkerRestart) restartEarly(why);
  }

  const aggregateWorkerData = () => ({
    rank_ips: latest?.rankIps ?? null,
    aggregate_worker_data: latest?.worker_data ?? null,
  });

  /** Sends `type` with every local rank's worker_envs; false when a rank has no client connected. */
  const sendRankInfo = (type: "job_start" | "job_rank_info"): boolean => {
    const envs = workerEnvsFor({ rendezvous, group: settings, spare: assignment.spare });
    const connected = ipc?.clientRanks() ?? new Set<number>();
    if (envs.some((_, localRank) => !connected.has(localRank))) return false;
    const aggregate = aggregateWorkerData();
    envs.forEach((workerEnvs, localRank) => {
      ipc?.sendToRank(localRank, type, { worker_envs: workerEnvs, aggregate_worker_data: aggregate });
      const rank = Number(workerEnvs.RANK);
      group.updateRankInfo({ localRank, rank, groupRank: rendezvous.groupRank });
      const record = attempt?.ranks[localRank];
      if (record) record.rank = rank;
    });
    return true;
  };

  const releaseBarrier = () => {
    group.reset(false);
    if (!sendRankInfo("job_start")) {
      const missing = [...Array(settings.nprocPerNode).keys()].filter((r) => !ipc?.clientRanks().has(r));
      fault({ reason: WORKER_FAULT, message: `Missing client connections from ranks=${missing}`, at: now() });
      return;
    }
    priority = false;
    attempt?.rearm();
    logger.info("barrier released", { rank: rendezvous.groupRank, faultCount: rendezvous.faultCount });
    const error = attempt?.setRules(rules) ?? null;
    if (error !== null)
      fault({
        reason: WORKER_FAULT,
        message: `Failed to load Log Monitoring Configuration: ${error}`,
        at: now(),
      });
  };

  /** Moves on once every local rank is at the barrier: READY (start-up, pause), or released (RUNNING). */
  const advance = () => {
    if (!group.atBarrier() || restarting !== null) return;
    const state = sm.current();
    if (state === "RUNNING" && canStart) releaseBarrier();
    if (!waitsForBarrier(state)) return;
    endPause();
    sm.transition("READY");
    logger.info("all local ranks at the barrier", { after: state === "INIT" ? "start-up" : "pause" });
  };

  const waitsForBarrier = (state: string) => state === "INIT" || (state === "STOPPING" && pausing);
  const workersEnded = (state: string) => attempt === null || attempt.faulted() || state === "COMPLETED";

  /** `job_fault` to every connected rank but `skip` (a rank restarted alone, not in the block). */
  const sendJobFault = (skip: number | null) => {
    const message = { restart_count: rendezvous.faultCount };
    const ranks = [...(ipc?.clientRanks() ?? [])].filter((localRank) => localRank !== skip);
    for (const localRank of ranks) ipc?.sendToRank(localRank, "job_fault", message);
  };

  /** `skip`: a rank restarted alone, whose new process is not in the block. */
  const pauseRanks = (skip: number | null = null) => {
    priority = true;
    pausing = true;
    attempt?.setRules(null);
    sendJobFault(skip);
    const seconds = config.inprocessTimeoutSeconds;
    if (seconds !== null) {
      pauseTimer = setTimeout(
        () => void plr(`Timed out (${seconds}s) waiting for workers to report to barrier.`),
        seconds * 1000,
      );
    }
    advance();
  };

  const restartAll = (how: Extract<StopKind, { kind: "restart" }>) =>
    void processRestart(
      { signal: how.signal ?? config.shutdownSignal, timeoutMs: how.timeoutMs ?? shutdownTimeoutMs },
      how.why,
    );

  /**
   * A /stop: pause, or a process-level restart; after an early restart, what it began is adopted
   * (adoptEarlyRestart, adoptRankRestart).
   */
  const carryOutStop = (how: StopKind) => {
    if (early === null) {
      if (how.kind === "pause") pauseRanks();
      else restartAll(how);
    } else if (early.localRank === null) adoptEarlyRestart(how.kind === "restart" ? how.timeoutMs : null);
    else adoptRankRestart(how, early.localRank);
  };

  const dispatch = createIpcDispatch({
    group,
    localWorldSize: settings.nprocPerNode,
    onBarrier: advance,
    onRankFault: (input) => {
      if (sm.current() === "RUNNING") fault({ ...input, at: now() });
      if (group.wantsLocalPlr()) void plr("a rank asked for a local process-level restart");
    },
  });

  const begin = async () => {
    ipc = await startIpcServer({
      path: socketPath,
      onMessage: dispatch,
      onDisconnect: (ranks) => {
        if (pausing) void plr(`Client connections dropped for ranks: ${ranks.join(", ")}`);
      },
      onError: (error) => logger.warn("IPC connection closed", { error }),
    });
    logger.info("IPC socket listening", { path: socketPath });
    launchWorkers();
  };

  const stopWorkersFor = (signal: NodeJS.Signals) =>
    (attempt?.stop({ signal, timeoutMs: shutdownTimeoutMs }) ?? Promise.resolve()).catch((error: unknown) =>
      logger.error("stopping workers failed", { error: String(error) }),
    );
  const closeIpc = () => ipc?.close() ?? Promise.resolve();

  return {
    markReady() {
      begin().catch((error: unknown) =>
        fault({ reason: WORKER_FAULT, message: `Agent error: ${String(error)}`, at: now() }),
      );
    },
    start(request: StartRequest): CommandResult {
      const result = sm.transition("RUNNING");
      if (!result.ok) return conflict(result.error);
      latest = request;
      rules = request.log_monitoring_configuration ?? [];
      rendezvous = rendezvousOf(request);
      assignment = assignmentOf(request, request.progress ?? null);
      canStart = !assignment.spare;
      logger.info("start", { rank: request.rank, nnodes: request.nnodes, faultCount: request.faultCount });
      advance();
      return { ok: true };
    },
    update(request) {
      if (sm.current() === "SHUTDOWN") return conflict("The agent is shutting down");
      latest = request;
      rendezvous = rendezvousOf(request);
      assignment = assignmentOf(request, assignment.progress);
      if (attempt !== null) sendRankInfo("job_rank_info");
      return { ok: true };
    },
    stop(request: StopRequest) {
      const state = sm.current();
      if (state === "READY" || state === "STOPPING" || state === "INIT") return { ok: true };
      const result = sm.transition("STOPPING");
      if (!result.ok) return conflict(result.error);
      canStart = false;
      carryOutStop(stopKind({ request, workersEnded: workersEnded(state) }));
      return { ok: true };
    },
    shutdown() {
      if (sm.current() === "SHUTDOWN") return { ok: true };
      const result = sm.transition("SHUTDOWN");
      if (!result.ok) return conflict(result.error);
      endPause();
      shutdownDone = Promise.resolve(restarting)
        .then(() => stopWorkersFor(config.shutdownSignal))
        .then(() => attempt?.killAll())
        .then(closeIpc);
      void shutdownDone.then(shutdownFinished);
      return { ok: true };
    },
    async terminate() {
      if (sm.current() !== "SHUTDOWN") sm.transition("SHUTDOWN");
      endPause();
      await (shutdownDone ?? stopWorkersFor(config.shutdownSignal));
      attempt?.killAll();
      await closeIpc();
    },
    whenShutdown: () => shutdownFinishedPromise,
    killAll: () => attempt?.killAll(),
    status: () =>
      buildStatus({
        snapshot: sm.snapshot(),
        assignment,
        ranks: early?.ranks ?? attempt?.ranks ?? [],
        inProcess: {
          restartMode: group.operatorRestartMode() ?? "in_process_restart",
          workerData: group.workerData(),
          rankLabels: group.labels(),
          priority,
        },
      }),
    metrics: () => metrics.render({ state: sm.current(), ranks: attempt?.ranks ?? [], now: now() }),
  };
}
