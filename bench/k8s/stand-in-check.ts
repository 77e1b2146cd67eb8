import {
  closeServer,
  createStandInAgent,
  type StandInAgent,
  serveStandInAgent,
} from "@/server/cluster/kubernetes/testing/stand-in-agents";
import { type AgentStatusName, agentStatusSchema, RESTART_MODE } from "@/server/domain/agent-api/protocol";
import { createAgentClient } from "@/server/operator/agent-client";

/**
 * The stand-in agents' self-check, run before every bench:k8s: the operator's own agent client drives one
 * stand-in through READY → RUNNING → FAULTED → STOPPING → READY → SHUTDOWN over HTTP, and every /status
 * body must parse with the protocol's schema and carry no key the schema does not name.
 */

/** Every /status key the stand-in sends must be one the protocol schema names (and parse with it). */
function checkStatus(agent: StandInAgent, expected: AgentStatusName): void {
  const body = JSON.parse(agent.statusJson()) as Record<string, unknown>;
  const parsed = agentStatusSchema.parse(body);
  const unknown = Object.keys(body).filter((key) => !(key in agentStatusSchema.shape));
  if (parsed.status !== expected || unknown.length > 0)
    throw new Error(`stand-in /status: expected ${expected}, got ${parsed.status}; unknown keys ${unknown}`);
}

/**
 * Drives one stand-in agent through its states over HTTP with the operator's own agent client (which parses
 * every answer with the protocol's schemas) and checks each /status body; throws on any mismatch.
 */
export async function checkStandInProtocol(): Promise<void> {
  const agent = createStandInAgent({ ranks: 2, stopDelayMs: 1 });
  const { server, port } = await serveStandInAgent(agent);
  const client = createAgentClient({ timeoutMs: 2000 });
  const base = `http://127.0.0.1:${port}`;
  const expectState = async (state: AgentStatusName) => {
    const answer = await client.status(base);
    if (!answer.ok || answer.value.status !== state)
      throw new Error(`stand-in agent: expected ${state}, got ${JSON.stringify(answer)}`);
    checkStatus(agent, state);
  };
  try {
    await expectState("ready");
    const start = { rank: 3, nnodes: 4, faultCount: 0, master_addr: "10.0.0.1", master_port: "29500" };
    const started = await client.start(base, { ...start, log_monitoring_configuration: [], progress: {} });
    if (!started.ok) throw new Error(`stand-in /start refused: ${started.error.detail}`);
    await expectState("running");
    const again = await client.start(base, start);
    if (again.ok || again.error.cause !== "rejected")
      throw new Error("stand-in: a second /start was accepted");
    agent.fault("WorkerCrash", "exit code 1");
    await expectState("faulted");
    await client.stop(base, { restart_mode: RESTART_MODE, timeout: 10 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await expectState("ready");
    await client.shutdown(base);
    await expectState("shutdown");
  } finally {
    agent.dispose();
    closeServer(server);
  }
}
