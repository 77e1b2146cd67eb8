import type {
  ClusterBackend,
  ClusterEvent,
  ClusterJob,
  ClusterNode,
  ClusterPod,
  CreatePodInput,
  JobRef,
} from "@/server/cluster/types";
import type { JobStatus } from "@/server/domain/job-spec/job-status.schema";
import type { FakeAgents } from "./fake-agents";

/**
 * One job on a few nodes, in memory, for unit tests of the reconcilers. What it holds is what a real
 * cluster persists across an operator restart: the job's status, its pods, its nodes and its events.
 * Pods start Running with a READY agent (FakeAgents); every create is logged, so tests can count them.
 */
export type FakeCluster = ClusterBackend & {
  /** Names of the pods created, in order. */
  readonly created: string[];
  readonly events: ClusterEvent[];
  status(): JobStatus;
  pod(name: string): ClusterPod | undefined;
  setNodeHealth(name: string, health: string, at: number): void;
};

function placeOn(input: CreatePodInput, nodes: ClusterNode[], used: (node: string) => number) {
  const fits = (node: ClusterNode) =>
    node.ready &&
    node.health === "Schedulable" &&
    !input.avoidNodes.includes(node.name) &&
    used(node.name) + input.gpus <= node.gpus;
  const preferred = nodes.find((node) => node.name === input.preferNode && fits(node));
  return preferred ?? nodes.find(fits) ?? null;
}

export function createFakeCluster(opts: {
  job: ClusterJob;
  nodes: ClusterNode[];
  agents: FakeAgents;
  clock: () => number;
}): FakeCluster {
  const { agents, clock } = opts;
  let job = structuredClone(opts.job);
  const nodes = structuredClone(opts.nodes);
  const pods = new Map<string, ClusterPod & { gpus: number }>();
  const created: string[] = [];
  const events: ClusterEvent[] = [];
  let serial = 0;
  const used = (node: string) =>
    [...pods.values()].filter((pod) => pod.node === node).reduce((sum, pod) => sum + pod.gpus, 0);
  const strip = ({ gpus: _, ...pod }: ClusterPod & { gpus: number }): ClusterPod => structuredClone(pod);
  const owned = (ref: JobRef) => ref.namespace === job.ref.namespace && ref.name === job.ref.name;

  return {
    kind: "local",
    created,
    events,
    status: () => structuredClone(job.status),
    pod: (name) => {
      const pod = pods.get(name);
      return pod ? strip(pod) : undefined;
    },
    setNodeHealth(name, health, at) {
      const node = nodes.find((candidate) => candidate.name === name);
      if (node) Object.assign(node, { health, changedAt: at });
    },
    start: async () => undefined,
    stop: async () => undefined,
    onChange: () => () => undefined,
    listJobs: async () => [structuredClone(job)],
    getJob: async (ref) => (owned(ref) ? structuredClone(job) : null),
    async updateJobStatus(ref, status) {
      if (owned(ref)) job = { ...job, status: structuredClone(status) };
    },
    async setSuspended(ref, suspend) {
      if (!owned(ref)) return false;
      const { spec } = job.object;
      job = {
        ...job,
        object: { ...job.object, spec: { ...spec, runPolicy: { ...spec.runPolicy, suspend } } },
      };
      return true;
    },
    updateJobObject: async () => ({ ok: false, reason: "not-found" }),
    async requestDeletion() {
      job = { ...job, deleting: true };
    },
    finalizeDeletion: async () => undefined,
    listPods: async (ref) => (owned(ref) ? [...pods.values()].map(strip) : []),
    async createPod(input) {
      const name = `${input.job.ref.name}-${input.replicaSpec}-${input.index}`;
      if (pods.has(name)) throw new Error(`pods "${name}" already exists`);
      const node = placeOn(input, nodes, used);
      if (!node) return null;
      serial += 1;
      const pod = {
        name,
        namespace: input.job.ref.namespace,
        job: input.job.ref.name,
        replicaSpec: input.replicaSpec,
        index: input.index,
        node: node.name,
        phase: "Running" as const,
        agentUrl: `fake://${name}/${serial}`,
        createdAt: clock(),
        finishedAt: null,
        gpus: input.gpus,
      };
      pods.set(name, pod);
      created.push(name);
      agents.boot(pod.agentUrl);
      return strip(pod);
    },
    async deletePod(_ref, name) {
      const pod = pods.get(name);
      if (pod?.agentUrl) agents.remove(pod.agentUrl);
      pods.delete(name);
    },
    podLogs: async () => "",
    listNodes: async () => structuredClone(nodes),
    async recordEvent(_ref, event) {
      events.push({ ...event, at: clock() });
    },
    listEvents: async () => structuredClone(events),
    rendezvous: async (rank0) => ({ addr: rank0.node ?? "127.0.0.1", port: "29500" }),
  };
}
