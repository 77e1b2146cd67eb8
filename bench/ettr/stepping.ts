import { ANNOTATION_AGENT_URL, LABEL_JOB } from "@/server/cluster/kubernetes/objects";
import type { JobRef } from "@/server/cluster/types";
import type { BenchEnvironment } from "../k8s/environment";

/**
 * When every rank of the job was stepping again after a fault, from the stand-in agents themselves (their
 * GET /status, as any client of the agent protocol reads it): a stand-in's ranks print their first step the
 * moment its agent takes /start (transitions.RUNNING), so the latest RUNNING transition since the fault among
 * the job's pods is when the last rank was training again. What the trainer then spends before its first real
 * step (process start, NCCL init, state load) is modelled, not measured (bench/ettr/costs.ts).
 */
export type SteppingAgain = {
  /** Epoch ms of the last pod's restart since the fault; NaN when none restarted. */
  at: number;
  /** Pods whose agent restarted since the fault / the job's pods that answered. */
  restarted: number;
  answered: number;
  /** Pods whose agent was not RUNNING with stepping ranks when read. */
  notStepping: number;
};

const CONCURRENCY = 32;
const TIMEOUT_MS = 5000;

type AgentStatusBody = {
  status?: string;
  transitions?: Record<string, string>;
  ranks?: { state?: string; step?: number | null }[];
};

/** The job's pods that have an agent address (the stand-ins annotate it once serving). */
function agentUrls(env: BenchEnvironment, ref: JobRef): string[] {
  const urls: string[] = [];
  for (const pod of env.pods.informer.list()) {
    if (pod.metadata?.labels?.[LABEL_JOB] !== ref.name || pod.metadata?.deletionTimestamp) continue;
    const url = pod.metadata?.annotations?.[ANNOTATION_AGENT_URL];
    if (url) urls.push(url);
  }
  return urls;
}

async function readStatus(url: string): Promise<AgentStatusBody | null> {
  const response = await fetch(`${url}/status`, { signal: AbortSignal.timeout(TIMEOUT_MS) }).catch(
    () => null,
  );
  if (!response?.ok) return null;
  return (await response.json().catch(() => null)) as AgentStatusBody | null;
}

/** Reads every agent of the job, CONCURRENCY at a time. */
async function readAll(urls: readonly string[]): Promise<(AgentStatusBody | null)[]> {
  const bodies: (AgentStatusBody | null)[] = [];
  for (let i = 0; i < urls.length; i += CONCURRENCY)
    bodies.push(...(await Promise.all(urls.slice(i, i + CONCURRENCY).map(readStatus))));
  return bodies;
}

const stepping = (body: AgentStatusBody) =>
  body.status === "running" &&
  (body.ranks ?? []).length > 0 &&
  (body.ranks ?? []).every((rank) => rank.state === "running" && typeof rank.step === "number");

export async function steppingAgain(
  env: BenchEnvironment,
  ref: JobRef,
  since: number,
): Promise<SteppingAgain> {
  const bodies = (await readAll(agentUrls(env, ref))).filter(
    (body): body is AgentStatusBody => body !== null,
  );
  const starts = bodies
    .map((body) => Date.parse(body.transitions?.RUNNING ?? ""))
    .filter((at) => Number.isFinite(at) && at >= since);
  return {
    at: starts.length > 0 ? Math.max(...starts) : Number.NaN,
    restarted: starts.length,
    answered: bodies.length,
    notStepping: bodies.filter((body) => !stepping(body)).length,
  };
}
