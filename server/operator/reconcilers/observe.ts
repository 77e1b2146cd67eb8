import type { ClusterBackend, ClusterJob, ClusterNode, ClusterPod } from "@/server/cluster/types";
import { jobKey } from "@/server/cluster/types";
import type { AgentCallError, AgentClient, AgentStatus } from "@/server/operator/agent-client";

/** The pods a job should have: every replica of every replica spec, in order; their order is the node rank. */
export type ExpectedPod = { name: string; replicaSpec: string; index: number; groupRank: number };

export function expectedPods(job: ClusterJob): ExpectedPod[] {
  const pods: ExpectedPod[] = [];
  for (const spec of job.job.spec.replicaSpecs) {
    for (let index = 0; index < spec.replicas; index += 1) {
      pods.push({
        name: `${job.ref.name}-${spec.name}-${index}`,
        replicaSpec: spec.name,
        index,
        groupRank: pods.length,
      });
    }
  }
  return pods;
}

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
    }
  | { kind: "none" };

export type PodView = { expected: ExpectedPod; pod: ClusterPod | null; agent: AgentView };

export type Observation = {
  now: number;
  job: ClusterJob;
  pods: PodView[];
  /** Pods of this job that are not expected (left over from a larger spec, or being deleted). */
  strays: ClusterPod[];
  nodes: ClusterNode[];
};

/**
 * Per pod, kept in memory across reconciles: when its agent's calls began failing (the unreachable
 * timeout counts from there) and which instance of the pod (its creation time) has answered at least once.
 */
export type FailureClock = Map<string, { failingSince: number | null; answered: number | null }>;

async function viewAgent(opts: {
  pod: ClusterPod | null;
  agents: AgentClient;
  failures: FailureClock;
  key: string;
  now: number;
  clock: () => number;
}): Promise<AgentView> {
  const { pod, failures, key, now } = opts;
  if (pod?.phase !== "Running" || !pod.agentUrl) {
    failures.delete(key);
    return { kind: "none" };
  }
  const seen = failures.get(key) ?? { failingSince: null, answered: null };
  const sentAt = opts.clock();
  const result = await opts.agents.status(pod.agentUrl);
  if (result.ok) {
    failures.set(key, { failingSince: null, answered: pod.createdAt });
    return { kind: "status", status: result.value };
  }
  // A call that timed out was sent while the agent was already stalled: the failure began at its sending.
  const since = seen.failingSince ?? Math.min(now, sentAt);
  failures.set(key, { ...seen, failingSince: since });
  return {
    kind: "error",
    error: result.error,
    since,
    failedAt: opts.clock(),
    answered: seen.answered === pod.createdAt,
  };
}

export async function observe(opts: {
  backend: ClusterBackend;
  agents: AgentClient;
  failures: FailureClock;
  job: ClusterJob;
  now: number;
  /** When each agent call returns (default: Date.now). */
  clock?: () => number;
}): Promise<Observation> {
  const { backend, job } = opts;
  const [pods, nodes] = await Promise.all([backend.listPods(job.ref), backend.listNodes()]);
  const byName = new Map(pods.map((pod) => [pod.name, pod]));
  const expected = expectedPods(job);
  const views = await Promise.all(
    expected.map(async (wanted) => {
      const pod = byName.get(wanted.name) ?? null;
      const key = `${jobKey(job.ref)}/${wanted.name}`;
      const agent = await viewAgent({
        pod,
        agents: opts.agents,
        failures: opts.failures,
        key,
        now: opts.now,
        clock: opts.clock ?? Date.now,
      });
      return { expected: wanted, pod, agent };
    }),
  );
  const wantedNames = new Set(expected.map((pod) => pod.name));
  return { now: opts.now, job, pods: views, strays: pods.filter((pod) => !wantedNames.has(pod.name)), nodes };
}

export function agentState(view: PodView): string | null {
  return view.agent.kind === "status" ? view.agent.status.status : null;
}
