import type { JobRef } from "@/server/cluster/types";
import type { ClusterSeriesName, JobSeriesName } from "./series";
import { promDuration } from "./step";

/**
 * The PromQL behind every chart. Agents' series (server/agent/metrics.ts) carry `rank` and `local_rank`;
 * the scrape config adds `namespace`, `job_name`, `pod` and `node` (deploy/prometheus/scrape-config.yaml,
 * or the local back end's file_sd targets). The operator's seven `hyperpod_training_operator_jobs_*` series
 * (server/operator/metrics.ts) carry the job's `namespace` and `job_name` themselves (scraped with
 * honor_labels). Every label value is quoted here, so no job name can change a query.
 */

/** A query and the label that names each of its series (absent: one series named `name`). */
export type SeriesQuery = { query: string; name: string; nameBy?: string };

/** PromQL label matchers accept any string in double quotes; escape what would end it. */
export const quote = (value: string) =>
  `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;

/** RE2 metacharacters escaped, for a value used inside a `=~` matcher. */
const regexEscape = (value: string) => value.replace(/[\\^$.|?*+()[\]{}]/g, "\\$&");

/** `{a="x",b="y"}` from label pairs (in the order given). */
export function selector(labels: Record<string, string>): string {
  return `{${Object.entries(labels)
    .map(([label, value]) => `${label}=${quote(value)}`)
    .join(",")}}`;
}

export function jobSelector(ref: JobRef, rank?: number): string {
  const labels: Record<string, string> = { namespace: ref.namespace, job_name: ref.name };
  if (rank !== undefined) labels.rank = String(rank);
  return selector(labels);
}

/** A namespace scope: every namespace, or an exact alternation of the given ones (null: none at all). */
export function namespaceSelector(namespaces: readonly string[] | "all"): string | null {
  if (namespaces === "all") return "";
  if (namespaces.length === 0) return null;
  return `{namespace=~${quote(namespaces.map(regexEscape).join("|"))}}`;
}

const OPERATOR = "hyperpod_training_operator_jobs";
const AGENT = "rebound_agent";

/**
 * Latency of the recoveries finished within the last step: the histogram's growth in sum over its growth
 * in count since one step ago (`or vector(0)`: a job's first recovery creates the series, so there is no
 * earlier sample to subtract). 0/0 where no recovery happened (dropped as not finite): one point per
 * recovery, at the first step after it, the same shape as the embedded history's.
 */
function perRecovery(histogram: string, matchers: string, stepSeconds: number): string {
  const offset = promDuration(stepSeconds);
  const delta = (part: "sum" | "count") =>
    `(sum(${histogram}_${part}${matchers}) - (sum(${histogram}_${part}${matchers} offset ${offset}) or vector(0)))`;
  return `${delta("sum")} / ${delta("count")}`;
}

/** The queries charting `series` of one job (and of one rank of it, where the series is per rank). */
export function jobQueries(
  ref: JobRef,
  series: JobSeriesName,
  opts: { rank?: number; stepSeconds: number },
): SeriesQuery[] {
  const job = jobSelector(ref);
  const rank = opts.rank === undefined ? null : jobSelector(ref, opts.rank);
  const rankName = `rank ${opts.rank}`;
  const withRank = (metric: string, aggregate: string, name: string): SeriesQuery[] => [
    { query: `${aggregate}(${metric}${job})`, name },
    ...(rank ? [{ query: `max(${metric}${rank})`, name: rankName }] : []),
  ];
  switch (series) {
    case "loss":
      return withRank(`${AGENT}_rank_loss`, "avg", "job mean");
    case "throughput":
      return withRank(`${AGENT}_rank_throughput`, "sum", "job total");
    case "heartbeat_age":
      return withRank(`${AGENT}_rank_last_log_age_seconds`, "max", "oldest rank");
    case "ranks": {
      const running = selector({ namespace: ref.namespace, job_name: ref.name, state: "running" });
      return [
        { query: `sum(${AGENT}_rank_state${running})`, name: "running" },
        { query: `count(${AGENT}_rank_state${running})`, name: "total" },
      ];
    }
    default:
      return operatorQueries(series, job, opts.stepSeconds);
  }
}

/** The operator's series, for a job's selector or a namespace scope's. */
function operatorQueries(
  series: "restarts" | "detection_latency" | "restart_latency",
  matchers: string,
  stepSeconds: number,
): SeriesQuery[] {
  switch (series) {
    case "restarts":
      return [
        {
          query: `sum by (restart_type) (${OPERATOR}_restarted_total${matchers})`,
          name: "restarts",
          nameBy: "restart_type",
        },
      ];
    case "detection_latency":
      return [
        {
          query: perRecovery(`${OPERATOR}_fault_detection_latency`, matchers, stepSeconds),
          name: "detection",
        },
      ];
    case "restart_latency":
      return [{ query: perRecovery(`${OPERATOR}_restart_latency`, matchers, stepSeconds), name: "restart" }];
    default:
      return series satisfies never;
  }
}

/** The cluster-wide queries of `series` over a namespace scope (null: the scope is empty). */
export function clusterQueries(
  series: ClusterSeriesName,
  scope: { namespaces: readonly string[] | "all" },
  stepSeconds: number,
): SeriesQuery[] | null {
  const matchers = namespaceSelector(scope.namespaces);
  if (matchers === null) return null;
  if (series === "throughput")
    return [{ query: `sum(${AGENT}_rank_throughput${matchers})`, name: "cluster total" }];
  return operatorQueries(series, matchers, stepSeconds);
}
