import { thinPoints } from "@/server/domain/tv/series";
import type { MetricsResult } from "@/server/metrics/series";
import { getMetricsSource, liveHub } from "@/server/services/wiring";

/** The TV's throughput chart: the last hour of the cluster's throughput. */
export const THROUGHPUT_WINDOW_MS = 60 * 60_000;
/** Asked again at most this often per scope (a scrape interval: a fresher answer would draw the same line). */
const THROUGHPUT_TTL_MS = 5000;

/**
 * The cluster's throughput over the last hour for the namespaces in scope, from Prometheus or the embedded
 * history (the metrics source never throws: an unreachable Prometheus is `unavailable` with the reason),
 * every series thinned to what a frame carries.
 */
export function throughputOf(args: { namespaces: string[] | "all"; now: number }): Promise<MetricsResult> {
  const key = args.namespaces === "all" ? "all" : [...args.namespaces].sort().join(",");
  return liveHub().cached(`tv:throughput:${key}`, THROUGHPUT_TTL_MS, async () => {
    const result = await getMetricsSource().cluster(
      "throughput",
      { start: args.now - THROUGHPUT_WINDOW_MS, end: args.now },
      { namespaces: args.namespaces },
    );
    if (result.status !== "ok") return result;
    return {
      ...result,
      series: result.series.map((series) => ({ ...series, points: thinPoints(series.points) })),
    };
  });
}
