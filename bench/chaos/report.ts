import type { Db } from "@/server/db/client";
import type { ChaosApi } from "./api";
import type { ChaosLog } from "./scenario";

/**
 * What the soak checks at the end, from Postgres and the operator's API:
 *   leaked      restart records shown for a job that happened before the job existed (another run's)
 *   duplicated  restart records of one fault written more than once (same job, reason and fault time)
 *   pending     restart records neither recovered nor failed once nothing is in flight
 *   retries consumed by operator restarts: the demo job's restartCount across each operator restart,
 *               with no fault injected around it (should be 0)
 *   highest restart rate: the most restart records any job got in one minute
 */
export type ChaosFigures = {
  records: number;
  leaked: number;
  duplicated: number;
  pending: number;
  retriesConsumedByOperatorRestarts: number;
  highestRestartsPerMinute: number;
  faultsInjected: number;
  faultsSkipped: number;
  resubmits: number;
  operatorRestarts: number;
  unstartableAccepted: boolean;
  operatorRssStartMb: number;
  operatorRssEndMb: number;
  consoleRssStartMb: number;
  consoleRssEndMb: number;
};

type Row = { namespace: string; jobName: string; faultReason: string; faultAt: Date; outcome: string };

function duplicates(rows: readonly Row[]): number {
  const seen = new Map<string, number>();
  for (const row of rows) {
    const key = `${row.namespace}/${row.jobName}/${row.faultReason}/${row.faultAt.getTime()}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  return [...seen.values()].reduce((sum, count) => sum + Math.max(0, count - 1), 0);
}

function highestPerMinute(rows: readonly Row[]): number {
  const byJob = new Map<string, number[]>();
  for (const row of rows) {
    const key = `${row.namespace}/${row.jobName}`;
    byJob.set(key, [...(byJob.get(key) ?? []), row.faultAt.getTime()]);
  }
  let best = 0;
  for (const times of byJob.values()) {
    times.sort((a, b) => a - b);
    let start = 0;
    for (let end = 0; end < times.length; end += 1) {
      while ((times[end] ?? 0) - (times[start] ?? 0) > 60_000) start += 1;
      best = Math.max(best, end - start + 1);
    }
  }
  return best;
}

/** Records the API shows for a current job that are older than the job itself. */
async function leaked(api: ChaosApi, operatorUrl: string, token: string): Promise<number> {
  let count = 0;
  for (const job of await api.jobs()) {
    const response = await fetch(`${operatorUrl}/api/v1/jobs/${job.namespace}/${job.name}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const detail = (await response.json()) as { restarts?: Array<{ faultAt: string }> };
    count += (detail.restarts ?? []).filter((row) => Date.parse(row.faultAt) < job.createdAt - 1000).length;
  }
  return count;
}

export async function collectFigures(deps: {
  db: Db;
  api: ChaosApi;
  operator: { url: string; token: string };
  log: ChaosLog;
  rss: Pick<
    ChaosFigures,
    "operatorRssStartMb" | "operatorRssEndMb" | "consoleRssStartMb" | "consoleRssEndMb"
  >;
}): Promise<ChaosFigures> {
  const rows: Row[] = await deps.db.restartEvent.findMany({
    select: { namespace: true, jobName: true, faultReason: true, faultAt: true, outcome: true },
  });
  return {
    records: rows.length,
    leaked: await leaked(deps.api, deps.operator.url, deps.operator.token),
    duplicated: duplicates(rows),
    pending: rows.filter((row) => row.outcome === "pending").length,
    retriesConsumedByOperatorRestarts: deps.log.operatorRestarts.reduce(
      (sum, restart) => sum + Math.max(0, restart.restartCountAfter - restart.restartCountBefore),
      0,
    ),
    highestRestartsPerMinute: highestPerMinute(rows),
    faultsInjected: deps.log.faultsInjected,
    faultsSkipped: deps.log.faultsSkipped,
    resubmits: deps.log.resubmits,
    operatorRestarts: deps.log.operatorRestarts.length,
    unstartableAccepted: deps.log.unstartableAccepted,
    ...deps.rss,
  };
}

export function printFigures(figures: ChaosFigures): void {
  const lines = [
    ["restart records", figures.records],
    ["leaked (another run's, shown for a current job)", figures.leaked],
    ["duplicated", figures.duplicated],
    ["left pending", figures.pending],
    ["retries consumed by operator restarts", figures.retriesConsumedByOperatorRestarts],
    ["highest restart rate (records / min, any job)", figures.highestRestartsPerMinute],
    [
      "faults injected (skipped while the job was not running)",
      `${figures.faultsInjected} (${figures.faultsSkipped})`,
    ],
    ["operator restarts / resubmits", `${figures.operatorRestarts} / ${figures.resubmits}`],
    ["unstartable job accepted", figures.unstartableAccepted],
    ["operator RSS start → end (MB)", `${figures.operatorRssStartMb} → ${figures.operatorRssEndMb}`],
    ["console RSS start → end (MB)", `${figures.consoleRssStartMb} → ${figures.consoleRssEndMb}`],
  ] as const;
  for (const [what, value] of lines) console.log(`${what.padEnd(58)} ${value}`);
  console.log(`BENCH chaos ${JSON.stringify(figures)}`);
}
