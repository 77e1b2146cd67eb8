import type { RestartEventRow } from "@/server/store/restart-events/queries";
import type { BenchJob } from "./job";
import type { BenchOperator } from "./operator";

/**
 * Where a restart's time went, from the agents' own `transitions` timestamps (read from every agent's
 * /status right after the restart event settled), each in ms after the operator detected the fault:
 * - firstStop: the first agent entered STOPPING (the operator's /stop arrived);
 * - lastReady: the last agent was READY (its workers had exited, or a new pod's agent was listening);
 * - lastStart: the last agent entered RUNNING (the operator's /start arrived);
 * - recorded: the operator recorded the restart as recovered.
 * For a full job restart, firstStop is absent (new agents start READY) and lastPod is the last new pod's
 * creation.
 */
export type Stages = {
  lastPod: number | null;
  firstStop: number | null;
  lastReady: number | null;
  lastStart: number | null;
  recorded: number | null;
};

/** The earliest or latest of `times`, in ms after `origin`; null when there is none. */
const offset = (times: number[], pick: "first" | "last", origin: number) =>
  times.length === 0 ? null : (pick === "first" ? Math.min(...times) : Math.max(...times)) - origin;

export async function readStages(
  operator: BenchOperator,
  job: BenchJob,
  event: RestartEventRow,
): Promise<Stages> {
  const origin = event.detectedAt.getTime();
  const pods = operator.backend.pods.list(job.ref);
  const statuses = await Promise.all(
    pods.map(async (pod) => (pod.agentUrl ? await operator.deps.agents.status(pod.agentUrl) : null)),
  );
  const times = (state: string) =>
    statuses.flatMap((result) => {
      const at = result?.ok ? result.value.transitions?.[state] : undefined;
      const time = at ? Date.parse(at) : Number.NaN;
      return Number.isNaN(time) || time < origin ? [] : [time];
    });
  const created = pods.map((pod) => pod.createdAt).filter((at) => at >= origin);
  return {
    lastPod: offset(created, "last", origin),
    firstStop: offset(times("STOPPING"), "first", origin),
    lastReady: offset(times("READY"), "last", origin),
    lastStart: offset(times("RUNNING"), "last", origin),
    recorded: event.recoveredAt ? event.recoveredAt.getTime() - origin : null,
  };
}
