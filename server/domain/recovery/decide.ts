// The recovery decision for one fault (docs/hyperpod-compatibility.md, "Recovery"): PLR → pod replacement →
// full job restart → fail.
import { faultyPodInstanceList, remedyFor } from "./faults";
import { nodesToAvoid, placeReplacement } from "./placement";
import type {
  ClusterView,
  Fault,
  RecoveryDecision,
  RecoveryStatusInput,
  RestartRecord,
  RunPolicyInput,
} from "./types";
import {
  countingStart,
  lifetimeCounters,
  repeatOffenders,
  standardRestartsSince,
  toEvalPeriod,
} from "./window";

export type DecideRecoveryInput = {
  runPolicy?: RunPolicyInput;
  status?: RecoveryStatusInput;
  /** Restarts performed so far; must hold at least every restart inside the evalPeriodSeconds window. */
  history: readonly RestartRecord[];
  fault: Fault;
  /** Epoch ms. */
  now: number;
  cluster: ClusterView;
};

type Context = DecideRecoveryInput & {
  totalRestarts: number;
  fullJobRestarts: number;
  /** Standard restarts in the window since the last JLR. */
  inWindow: number;
  /** Counting window start, epoch ms (exclusive). */
  windowStartMs: number;
  healthy: ReadonlySet<string>;
};

function analyse(input: DecideRecoveryInput): Context {
  const policy = input.runPolicy?.restartPolicy;
  const start = countingStart({ policy, history: input.history, now: input.now });
  return {
    ...input,
    ...lifetimeCounters(input.status, input.history),
    inWindow: standardRestartsSince(input.history, start),
    windowStartMs: start,
    healthy: new Set(input.cluster.healthyNodes),
  };
}

function record(ctx: Context, type: RestartRecord["type"]): RestartRecord {
  const nodes = ctx.fault.node === undefined ? [] : [ctx.fault.node];
  return { at: ctx.now, type, nodes, pods: [...ctx.fault.pods] };
}

type Failure = Pick<Extract<RecoveryDecision, { action: "FAIL" }>, "limit" | "reason">;

function fail(ctx: Context, failure: Failure): RecoveryDecision {
  return {
    action: "FAIL",
    ...failure,
    restartStatus: {
      currentEvalPeriod: toEvalPeriod(ctx.windowStartMs),
      fullJobRestartCount: ctx.fullJobRestarts,
      restartCount: ctx.inWindow,
    },
    latestFaultyPodInstanceList: null,
    restartCount: ctx.totalRestarts,
    record: null,
  };
}

function avoidNodes(ctx: Context): string[] {
  const policy = ctx.runPolicy?.restartPolicy;
  const offenders = repeatOffenders({ policy, history: ctx.history, current: ctx.fault, now: ctx.now });
  return nodesToAvoid({
    fault: ctx.fault,
    healthyNodes: ctx.healthy,
    offenders,
    maxOffenders: policy?.maxNumRepeatOffendersToAvoid,
  });
}

function fullJobRestart(ctx: Context): RecoveryDecision {
  return {
    action: "JLR",
    avoidNodes: avoidNodes(ctx),
    restartStatus: {
      currentEvalPeriod: toEvalPeriod(ctx.now),
      fullJobRestartCount: ctx.fullJobRestarts + 1,
      restartCount: 0,
    },
    latestFaultyPodInstanceList: faultyPodInstanceList(ctx.fault, "JLR"),
    restartCount: ctx.totalRestarts + 1,
    record: record(ctx, "JLR"),
  };
}

function standardRestart(ctx: Context): RecoveryDecision {
  const status = {
    restartStatus: {
      currentEvalPeriod: toEvalPeriod(ctx.windowStartMs),
      fullJobRestartCount: ctx.fullJobRestarts,
      restartCount: ctx.inWindow + 1,
    },
    latestFaultyPodInstanceList: faultyPodInstanceList(ctx.fault, "PLR"),
    restartCount: ctx.totalRestarts + 1,
  };
  if (remedyFor(ctx.fault, ctx.healthy) === "PLR") {
    return { action: "PLR", ...status, record: record(ctx, "PLR") };
  }
  const avoid = avoidNodes(ctx);
  return {
    action: "POD_REPLACEMENT",
    pods: [...ctx.fault.pods],
    ranks: [...ctx.fault.ranks],
    avoidNodes: avoid,
    ...placeReplacement({ fault: ctx.fault, cluster: ctx.cluster, avoidNodes: avoid }),
    ...status,
    record: record(ctx, "POD_REPLACEMENT"),
  };
}

/**
 * Decide how to recover from `fault`. Order: the jobMaxRetryCount cap (restarts of any kind over the job's
 * life), then escalation once the window holds numRestartBeforeFullJobRestart standard restarts (JLR, or FAIL
 * at maxFullJobRestarts), else PLR or pod replacement. Unset numRestartBeforeFullJobRestart never escalates;
 * unset maxFullJobRestarts allows any number of JLRs (our choice: the policy names a full restart as the next
 * step, and jobMaxRetryCount still caps the total).
 */
export function decideRecovery(input: DecideRecoveryInput): RecoveryDecision {
  const ctx = analyse(input);
  const maxRetries = ctx.runPolicy?.jobMaxRetryCount;
  if (maxRetries !== undefined && ctx.totalRestarts >= maxRetries) {
    const reason = `jobMaxRetryCount (${maxRetries}) exceeded: the job has restarted ${ctx.totalRestarts} times`;
    return fail(ctx, { limit: "jobMaxRetryCount", reason });
  }
  const policy = ctx.runPolicy?.restartPolicy;
  const limit = policy?.numRestartBeforeFullJobRestart;
  if (policy === undefined || limit === undefined || ctx.inWindow < limit) return standardRestart(ctx);
  const maxFull = policy.maxFullJobRestarts;
  if (maxFull !== undefined && ctx.fullJobRestarts >= maxFull) {
    const reason = `maxFullJobRestarts (${maxFull}) reached: ${ctx.inWindow} restarts within evalPeriodSeconds (${policy.evalPeriodSeconds}) since the last full job restart`;
    return fail(ctx, { limit: "maxFullJobRestarts", reason });
  }
  return fullJobRestart(ctx);
}
