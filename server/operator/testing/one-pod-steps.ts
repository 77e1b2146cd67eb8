import type { ClusterJob, ClusterPod } from "@/server/cluster/types";
import type { AgentClient, AgentStatus } from "@/server/operator/agent-client";
import type { JobContext } from "@/server/operator/reconcilers/deps";
import { detectFault } from "@/server/operator/reconcilers/detect";
import { readState } from "@/server/operator/reconcilers/job-state";
import { expectedPods, type Observation } from "@/server/operator/reconcilers/observe";
import { startAgents } from "@/server/operator/reconcilers/steps";

/**
 * The operator's own reconcile steps for a one-pod job whose agent runs outside any back end (the
 * conformance test's `hyperpodrun`): `start` builds and sends `/start` exactly as a reconcile does
 * (startAgents: rank, nnodes, faultCount = restartCount, rendezvous, rankIps, the job's log rules), and
 * `detect` is the operator's fault detection over the agent's `/status`. Only the cluster is left out:
 * the pod is given, and the rendezvous is the local back end's (127.0.0.1 and a port).
 */
export function onePodSteps(opts: {
  job: ClusterJob;
  agentUrl: string;
  agents: AgentClient;
  masterPort: string;
}) {
  const [expected] = expectedPods(opts.job);
  if (!expected || expectedPods(opts.job).length !== 1) throw new Error("onePodSteps takes a one-pod job");
  const pod: ClusterPod = {
    name: expected.name,
    namespace: opts.job.ref.namespace,
    job: opts.job.ref.name,
    replicaSpec: expected.replicaSpec,
    index: expected.index,
    node: "local-node-0",
    phase: "Running",
    agentUrl: opts.agentUrl,
    ip: "127.0.0.1",
    createdAt: 0,
    finishedAt: null,
  };
  const observe = (status: AgentStatus, now: number): Observation => ({
    now,
    job: opts.job,
    pods: [{ expected, pod, agent: { kind: "status", status } }],
    strays: [],
    nodes: [],
  });
  return {
    pod,
    /** One startAgents pass against a READY agent; returns the rendezvous the operator chose. */
    async start(input: { status: AgentStatus; restartCount: number; now: number }) {
      const ctx = {
        deps: {
          agents: opts.agents,
          backend: { rendezvous: async () => ({ addr: "127.0.0.1", port: opts.masterPort }) },
        },
        job: opts.job,
        obs: observe(input.status, input.now),
        status: { restartCount: input.restartCount },
        state: readState({}, input.now),
        saved: {},
        now: input.now,
        ranksPerNode: 1,
      } as unknown as JobContext;
      const allRunning = await startAgents(ctx);
      return { allRunning, rendezvous: ctx.state.rendezvous };
    },
    detect: (status: AgentStatus, now: number) =>
      detectFault(observe(status, now), { agentTimeoutMs: 3000, ranksPerNode: 1, podStartGraceMs: 0 }),
  };
}
