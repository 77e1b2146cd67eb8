import type { AgentClient, AgentResult, AgentStatus, StartRequestBody } from "@/server/operator/agent-client";

/**
 * An in-memory stand-in for the pods' agents, for unit tests of the reconcilers: each agent follows the
 * protocol's states (a new pod's agent is READY; /start → RUNNING; /stop → READY; a fault → FAULTED).
 * Transitions are immediate. An agent whose pod is gone is unreachable.
 */
type FakeAgent = { status: AgentStatus; starts: StartRequestBody[] };

export type FakeAgents = AgentClient & {
  /** A pod's agent comes up (READY). */
  boot(url: string): void;
  /** Its pod is gone. */
  remove(url: string): void;
  /** A worker of the agent at `url` crashes. */
  fault(url: string, input: { reason: string; at: number }): void;
  state(url: string): AgentStatus["status"] | null;
  /** Every /start each agent accepted. */
  starts(url: string): StartRequestBody[];
  /** While held, /start times out and agents stay READY (a slow start: the restart waits in "starting"). */
  hold(held: boolean): void;
  /** The agent at `url` stops answering (a SIGSTOPped process): every call times out, nothing changes. */
  freeze(url: string): void;
};

const timedOut = (url: string) =>
  ({ ok: false, error: { cause: "timeout", detail: `${url} did not answer` } }) as const;

const unreachable = (url: string) =>
  ({ ok: false, error: { cause: "unreachable", detail: `no agent at ${url}` } }) as const;

export function createFakeAgents(): FakeAgents {
  const agents = new Map<string, FakeAgent>();
  const frozen = new Set<string>();
  let held = false;
  const answer = (url: string, change: (agent: FakeAgent) => void): AgentResult<unknown> => {
    if (frozen.has(url)) return timedOut(url);
    const agent = agents.get(url);
    if (!agent) return unreachable(url);
    change(agent);
    return { ok: true, value: structuredClone(agent.status) };
  };
  const toReady = (agent: FakeAgent) => {
    if (agent.status.status !== "init") agent.status = { status: "ready" };
  };
  return {
    boot: (url) => agents.set(url, { status: { status: "ready" }, starts: [] }),
    remove: (url) => {
      agents.delete(url);
      frozen.delete(url);
    },
    freeze: (url) => void frozen.add(url),
    fault(url, input) {
      const agent = agents.get(url);
      if (agent)
        agent.status = {
          status: "faulted",
          reason: input.reason,
          fault_at: new Date(input.at).toISOString(),
        };
    },
    state: (url) => agents.get(url)?.status.status ?? null,
    starts: (url) => agents.get(url)?.starts ?? [],
    hold: (value) => {
      held = value;
    },
    async status(url) {
      if (frozen.has(url)) return timedOut(url);
      const agent = agents.get(url);
      return agent ? { ok: true, value: structuredClone(agent.status) } : unreachable(url);
    },
    start: async (url, body) =>
      held || frozen.has(url)
        ? { ok: false, error: { cause: "timeout", detail: `${url}/start is held` } }
        : answer(url, (agent) => {
            if (agent.status.status !== "ready") return;
            agent.starts.push(structuredClone(body));
            agent.status = { status: "running" };
          }),
    stop: async (url) => answer(url, toReady),
    update: async (url) => answer(url, () => undefined),
    shutdown: async (url) => answer(url, toReady),
  };
}
