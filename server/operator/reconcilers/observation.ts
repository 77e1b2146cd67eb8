import type { ClusterJob, ClusterNode, ClusterPod } from "@/server/cluster/types";
import type { AgentCallError, AgentStatus } from "@/server/operator/agent-client";

// What one reconcile observes of a job (observe.ts builds it; detect.ts, drift.ts and ranks.ts read it),
// apart from observe.ts so that detection does not import the module that calls it.

/** The pods a job should have: every replica of every replica spec, in order; their order is the node rank. */
export type ExpectedPod = { name: string; replicaSpec: string; index: number; groupRank: number };

export type AgentView =
  | { kind: "status"; status: AgentStatus }
  | {
      kind: "error";
      error: AgentCallError;
      /** When the first call of this run of failures was sent. */
      since: number;
      /** When the latest failed call returned (absent: the observation's time). */
      failedAt?: number;
      /** This pod's agent answered before: it is past its start-up grace. */
      answered?: boolean;
      /** A pushing agent judged silent (server/operator/presence): a fault at once, no timeout to wait. */
      silent?: boolean;
    }
  | { kind: "none" };

/** Shared between reconciles (keptViews): a step that changes a pod replaces its view in `obs.pods`. */
export type ObservedPod = Readonly<{ expected: ExpectedPod; pod: ClusterPod | null; agent: AgentView }>;

/**
 * Which of an observation's views detection reads (detect.ts): those that may hold a fault (mayHoldFault),
 * the polled ones and those a step replaced (`suspects`), and, for a node turned unhealthy, the views of
 * the pods on it (`onNode`). Indices into `pods`, the array it was built for: once a step puts another
 * array in its place, detection reads every view again.
 */
export type DetectionIndex = {
  pods: readonly ObservedPod[];
  suspects: Set<number>;
  onNode: ReadonlyMap<string, ReadonlySet<number>>;
};

export type Observation = {
  now: number;
  job: ClusterJob;
  pods: ObservedPod[];
  /** Pods of this job that are not expected (left over from a larger spec, or being deleted). */
  strays: ClusterPod[];
  nodes: readonly ClusterNode[];
  /** How many agents were polled for this observation (the others pushed; absent: all polled). */
  polled?: number;
  /** Absent: detection reads every view. */
  index?: DetectionIndex;
};

/**
 * Per pod, kept in memory across reconciles: when its agent's calls began failing (the unreachable
 * timeout counts from there) and which instance of the pod (its creation time) has answered at least once.
 */
export type FailureClock = Map<string, { failingSince: number | null; answered: number | null }>;
