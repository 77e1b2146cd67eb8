import { describe, expect, it } from "vitest";
import type { ClusterBackend, ClusterJob, ClusterPod } from "@/server/cluster/types";
import type { HyperPodPyTorchJob } from "@/server/domain/job-spec/job-spec.schema";
import type { AgentClient, AgentStatus } from "@/server/operator/agent-client";
import type { Presence, PushedView, WatchedPod } from "@/server/operator/presence/presence";
import { observe, replacePod } from "./observe";

const job = {
  ref: { namespace: "ns", name: "job" },
  object: { spec: { replicaSpecs: [{ name: "worker", replicas: 3 }] } } as unknown as HyperPodPyTorchJob,
} as ClusterJob;

const podOf = (index: number, createdAt = 1000): ClusterPod => ({
  name: `job-worker-${index}`,
  namespace: "ns",
  job: "job",
  replicaSpec: "worker",
  index,
  node: `node-${index}`,
  phase: "Running",
  agentUrl: `http://10.0.0.${index}:8080`,
  createdAt,
  finishedAt: null,
});

/** A back end that answers the same pod list until `setPods` (as the kubernetes one's pod index does). */
function fakeBackend(pods: readonly ClusterPod[]) {
  let list = Object.freeze([...pods]);
  const backend = {
    listPods: async () => list,
    listNodes: async () => [],
  } as unknown as ClusterBackend;
  const setPods = (next: ClusterPod[]) => {
    list = Object.freeze(next);
  };
  return { backend, setPods };
}

/** Presence with views set by the test; `tracks: false` is presence that cannot say what changed. */
function fakePresence(opts: { tracks: boolean }) {
  const views = new Map<string, PushedView | null>();
  const changed = new Set<string>();
  const reads: string[] = [];
  const presence: Presence = {
    sync: () => undefined,
    pushed(pod: WatchedPod) {
      reads.push(pod.name);
      return views.get(`${pod.namespace}/${pod.name}`) ?? null;
    },
    takeChanged() {
      if (!opts.tracks) return null;
      const keys = new Set(changed);
      changed.clear();
      return keys;
    },
    forgetJob: () => undefined,
    onWake: () => () => undefined,
    stats: () => ({ pushing: 0, polled: 0, probing: 0, silent: 0, lateTicks: 0, correlated: 0 }),
    stop: () => undefined,
  };
  const set = (pod: string, state: AgentStatus["status"] | null) => {
    views.set(`ns/${pod}`, state === null ? null : { kind: "status", status: { status: state } });
    changed.add(`ns/${pod}`);
  };
  return { presence, set, reads };
}

function fakeAgents(answer: () => string | null) {
  let calls = 0;
  const agents = {
    status: async () => {
      calls += 1;
      const state = answer();
      return state === null
        ? { ok: false, error: { cause: "refused", detail: "connection refused" } }
        : { ok: true, value: { status: state } };
    },
  } as unknown as AgentClient;
  return { agents, calls: () => calls };
}

const states = (pods: { agent: { kind: string; status?: { status: string } } }[]) =>
  pods.map((view) => (view.agent.kind === "status" ? view.agent.status?.status : view.agent.kind));

describe("observe, views kept between reconciles", () => {
  const pods = [podOf(0), podOf(1), podOf(2)];

  it("reads again only the agents presence says changed, and sees what reading them all would", async () => {
    const { backend } = fakeBackend(pods);
    const tracked = fakePresence({ tracks: true });
    for (const pod of pods) tracked.set(pod.name, "running");
    const look = (presence: Presence) =>
      observe({ backend, agents: fakeAgents(() => null).agents, failures: new Map(), job, now: 1, presence });

    const first = await look(tracked.presence);
    expect(tracked.reads).toHaveLength(3);
    tracked.set("job-worker-1", "faulted");
    const second = await look(tracked.presence);
    expect(tracked.reads).toHaveLength(4);
    expect(tracked.reads[3]).toBe("job-worker-1");
    expect(states(second.pods)).toEqual(["running", "faulted", "running"]);
    expect(second.pods[0]).toBe(first.pods[0]);
    expect(second.pods).not.toBe(first.pods);

    const everyone = fakePresence({ tracks: false });
    for (const pod of pods) everyone.set(pod.name, pod.name === "job-worker-1" ? "faulted" : "running");
    expect((await look(everyone.presence)).pods).toEqual(second.pods);
  });

  it("reads again only the pods a new list changed, and keeps no step's change to a reconcile's views", async () => {
    const { backend, setPods } = fakeBackend(pods);
    const { presence, set, reads } = fakePresence({ tracks: true });
    for (const pod of pods) set(pod.name, "running");
    const look = () =>
      observe({ backend, agents: fakeAgents(() => null).agents, failures: new Map(), job, now: 1, presence });

    const first = await look();
    const deleted = first.pods[2];
    if (!deleted) throw new Error("no view for job-worker-2");
    replacePod(first, deleted, null);
    expect(first.pods[2]?.pod).toBeNull();
    expect(states(first.pods)).toEqual(["running", "running", "none"]);
    const second = await look();
    expect(second.pods[2]?.pod).toEqual(podOf(2));
    expect(states(second.pods)).toEqual(["running", "running", "running"]);

    // A new list in which only job-worker-2 is a new pod (replaced): its agent is read, not the others'.
    const [zero, one] = pods as [ClusterPod, ClusterPod];
    const replaced = podOf(2, 2000);
    setPods([zero, one, replaced]);
    const before = reads.length;
    const third = await look();
    expect(reads.slice(before)).toEqual(["job-worker-2"]);
    expect(third.pods[2]?.pod).toBe(replaced);
    expect(third.pods[0]).toBe(second.pods[0]);
    // Gone from the list: no agent, polled (as a pod that is not Running).
    setPods([zero, one]);
    const fourth = await look();
    expect(reads.slice(before)).toEqual(["job-worker-2"]);
    expect(fourth.pods[2]?.pod).toBeNull();
    expect(states(fourth.pods)).toEqual(["running", "running", "none"]);
  });

  it("keeps the detection index: the views that may hold a fault, polled ones, and views by node", async () => {
    const { backend, setPods } = fakeBackend(pods);
    const { presence, set } = fakePresence({ tracks: true });
    for (const pod of pods) set(pod.name, "running");
    const look = () =>
      observe({
        backend,
        agents: fakeAgents(() => "running").agents,
        failures: new Map(),
        job,
        now: 1,
        presence,
      });
    const suspects = (obs: { index?: { suspects: Set<number> } }) => [...(obs.index?.suspects ?? [])].sort();
    const byNode = (obs: { index?: { onNode: ReadonlyMap<string, ReadonlySet<number>> } }) =>
      Object.fromEntries([...(obs.index?.onNode ?? [])].map(([node, at]) => [node, [...at]]));

    const first = await look();
    expect(first.index?.pods).toBe(first.pods);
    expect(suspects(first)).toEqual([]);
    expect(byNode(first)).toEqual({ "node-0": [0], "node-1": [1], "node-2": [2] });
    set("job-worker-1", "faulted");
    expect(suspects(await look())).toEqual([1]);
    set("job-worker-1", "running");
    const third = await look();
    expect(suspects(third)).toEqual([]);
    // A step's replacement is looked at in its reconcile.
    const gone = third.pods[2];
    if (!gone) throw new Error("no view for job-worker-2");
    replacePod(third, gone, null);
    expect(suspects(third)).toEqual([2]);
    // job-worker-2 comes back on another node; job-worker-0's agent stops pushing and is polled.
    setPods([podOf(0), podOf(1), { ...podOf(2, 2000), node: "node-7" }]);
    set("job-worker-0", null);
    const fourth = await look();
    expect(byNode(fourth)).toEqual({ "node-0": [0], "node-1": [1], "node-7": [2] });
    expect(suspects(fourth)).toEqual([0]);
  });

  it("polls an agent that does not push on every reconcile, and keeps no answer of a poll", async () => {
    const { backend } = fakeBackend(pods);
    const { presence, set } = fakePresence({ tracks: true });
    set("job-worker-0", "running");
    set("job-worker-2", "running");
    let answer: string | null = "running";
    const agents = fakeAgents(() => answer);
    const look = () =>
      observe({ backend, agents: agents.agents, failures: new Map(), job, now: 1, presence });

    expect(states((await look()).pods)).toEqual(["running", "running", "running"]);
    expect(agents.calls()).toBe(1);
    answer = null;
    const second = await look();
    expect(agents.calls()).toBe(2);
    expect(states(second.pods)).toEqual(["running", "error", "running"]);
    expect(second.polled).toBe(1);
    // It starts pushing: read from presence, polled no more.
    set("job-worker-1", "ready");
    expect(states((await look()).pods)).toEqual(["running", "ready", "running"]);
    expect(agents.calls()).toBe(2);
  });
});
