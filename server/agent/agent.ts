import type { StartRequest } from "@/server/domain/agent-api/protocol";
import type { LogMonitoringRule } from "../domain/log-rules/log-rule.schema";
import { logRuleWarnings } from "../domain/log-rules/rule-warnings";
import {
  type Agent,
  type AgentDeps,
  assignmentOf,
  conflict,
  launcherSettings,
  rendezvousOf,
} from "./agent-parts";
import { createInProcessAgent } from "./ipr/ipr-agent";
import { type Attempt, launchAttempt } from "./launcher";
import { createAgentMetrics } from "./metrics";
import { type AgentStateMachine, createAgentStateMachine, type Fault } from "./state";
import { type Assignment, buildStatus, EMPTY_ASSIGNMENT } from "./status";

/**
 * The agent: the state machine of docs/hyperpod-compatibility.md, "The agent protocol", driven by the
 * operator's commands, and the attempt (worker group) each /start launches. Commands answer at once; work
 * that takes time (stopping workers) finishes in the background and moves the state on by itself
 * (STOPPING → READY).
 *
 * Choices where HyperPod's agent is silent: /stop while READY or STOPPING and /shutdown while SHUTDOWN are
 * accepted no-ops (the operator may repeat them); a /start with `spare: true` enters RUNNING without
 * starting workers (a hot spare idles until it is given a rank).
 */

export type { Agent, AgentDeps, CommandResult } from "./agent-parts";

const transitionResult = (sm: AgentStateMachine, ...args: Parameters<AgentStateMachine["transition"]>) => {
  const result = sm.transition(...args);
  return result.ok ? null : conflict(result.error);
};

export function createAgent(deps: AgentDeps): Agent {
  if (deps.config.inprocessRestart) return createInProcessAgent(deps);
  const { config, logger, now } = deps;
  const settings = launcherSettings(deps);
  const sm = createAgentStateMachine({ now });
  const metrics = createAgentMetrics();
  let assignment: Assignment = EMPTY_ASSIGNMENT;
  let attempt: Attempt | null = null;
  let attempts = 0;
  let shutdownDone: Promise<void> | null = null;
  let shutdownFinished = () => {};
  const shutdownFinishedPromise = new Promise<void>((resolve) => {
    shutdownFinished = resolve;
  });
  const shutdownTimeoutMs = config.shutdownTimeoutSeconds * 1000;

  const onFault = (number: number, fault: Fault) => {
    if (attempt?.number !== number || sm.current() !== "RUNNING") return;
    sm.transition("FAULTED", fault);
    metrics.recordFault(fault.reason);
    logger.warn("fault", { attempt: number, reason: fault.reason, message: fault.message });
  };
  const onCompleted = (number: number) => {
    if (attempt?.number === number && sm.current() === "RUNNING") sm.transition("COMPLETED");
  };
  const launch = (request: StartRequest) => {
    const number = attempts++;
    metrics.recordAttempt();
    const rules: readonly LogMonitoringRule[] = request.log_monitoring_configuration ?? [];
    // Accepted as hyperpodrun accepts them; what it would ignore is logged once per attempt.
    for (const warning of logRuleWarnings(rules, rules)) logger.warn(warning.message, { attempt: number });
    attempt = launchAttempt({
      settings,
      rendezvous: rendezvousOf(request),
      rules,
      attempt: number,
      deps: { baseEnv: deps.baseEnv, logger, now, output: deps.output },
      events: { onFault: (fault) => onFault(number, fault), onCompleted: () => onCompleted(number) },
    });
  };
  const stopWorkers = (signal: NodeJS.Signals, timeoutMs: number) =>
    (attempt?.stop({ signal, timeoutMs }) ?? Promise.resolve()).catch((error: unknown) =>
      logger.error("stopping workers failed", { error: String(error) }),
    );

  return {
    markReady: () => void sm.transition("READY"),
    start(request) {
      const refused = transitionResult(sm, "RUNNING");
      if (refused) return refused;
      assignment = assignmentOf(request, request.progress ?? null);
      if (assignment.spare) attempt = null;
      else launch(request);
      logger.info("start", { rank: request.rank, nnodes: request.nnodes, faultCount: request.faultCount });
      return { ok: true };
    },
    update(request) {
      if (sm.current() === "SHUTDOWN") return conflict("The agent is shutting down");
      assignment = assignmentOf(request, assignment.progress);
      return { ok: true };
    },
    stop(request) {
      if (sm.current() === "READY" || sm.current() === "STOPPING") return { ok: true };
      const refused = transitionResult(sm, "STOPPING");
      if (refused) return refused;
      const signal = request.is_graceful ? "SIGUSR1" : config.shutdownSignal;
      const timeoutMs = request.timeout == null ? shutdownTimeoutMs : request.timeout * 1000;
      void stopWorkers(signal, timeoutMs).then(() => {
        if (sm.current() === "STOPPING") sm.transition("READY");
      });
      return { ok: true };
    },
    shutdown() {
      if (sm.current() === "SHUTDOWN") return { ok: true };
      const refused = transitionResult(sm, "SHUTDOWN");
      if (refused) return refused;
      shutdownDone = stopWorkers(config.shutdownSignal, shutdownTimeoutMs).then(() => attempt?.killAll());
      void shutdownDone.then(shutdownFinished);
      return { ok: true };
    },
    async terminate() {
      if (sm.current() !== "SHUTDOWN") sm.transition("SHUTDOWN");
      await (shutdownDone ?? stopWorkers(config.shutdownSignal, shutdownTimeoutMs));
      attempt?.killAll();
    },
    whenShutdown: () => shutdownFinishedPromise,
    killAll: () => attempt?.killAll(),
    status: () => buildStatus({ snapshot: sm.snapshot(), assignment, ranks: attempt?.ranks ?? [] }),
    metrics: () => metrics.render({ state: sm.current(), ranks: attempt?.ranks ?? [], now: now() }),
  };
}
