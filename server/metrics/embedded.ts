import type { ClusterSource, HistoryQuery } from "@/server/services/jobs/gateway/types";
import type { MetricsResult, MetricsSource } from "./series";

/**
 * The metrics source without Prometheus: the operator's embedded bounded history (server/operator/history.ts),
 * read through the console's cluster source (GET …/history on the operator's API). Per-rank lines need
 * Prometheus: the embedded history keeps job-level series only, so `opts.rank` adds nothing here. Any
 * failure (no operator, console-only mode, a job it has no history of) is `unavailable` with the reason.
 */
export function createEmbeddedSource(cluster: () => Promise<ClusterSource>): MetricsSource {
  const read = async (query: HistoryQuery): Promise<MetricsResult> => {
    try {
      if (!(query.end > query.start))
        return { status: "unavailable", source: "embedded", reason: "the window ends before it starts" };
      const answer = await (await cluster()).history(query);
      return { status: "ok", source: "embedded", series: answer.series };
    } catch (error) {
      return {
        status: "unavailable",
        source: "embedded",
        reason: error instanceof Error ? error.message : String(error),
      };
    }
  };
  return {
    kind: "embedded",
    job: (ref, series, window) => read({ scope: "job", ref, series, ...window }),
    cluster: (series, window, scope) =>
      read({ scope: "cluster", namespaces: scope.namespaces, series, ...window }),
  };
}
