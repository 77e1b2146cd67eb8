import { describe, expect, it } from "vitest";
import { clusterQueries, jobQueries, jobSelector, namespaceSelector, quote } from "./promql";

const ref = { namespace: "team-a", name: "llama" };

describe("quoting", () => {
  it("quotes label values so a name cannot change the query", () => {
    expect(jobSelector({ namespace: "ns", name: 'a"} or vector(1) #' }, 3)).toBe(
      '{namespace="ns",job_name="a\\"} or vector(1) #",rank="3"}',
    );
    expect(quote("back\\slash\nline")).toBe('"back\\\\slash\\nline"');
  });

  it("escapes regex metacharacters in a namespace scope, and has no matcher for 'all' and none for []", () => {
    expect(namespaceSelector(["team-a", "a.b|c"])).toBe('{namespace=~"team-a|a\\\\.b\\\\|c"}');
    expect(namespaceSelector("all")).toBe("");
    expect(namespaceSelector([])).toBeNull();
  });
});

describe("queries per series", () => {
  it("charts the agents' series per job, and one rank's beside it", () => {
    expect(jobQueries(ref, "throughput", { rank: 2, stepSeconds: 5 })).toEqual([
      { query: 'sum(rebound_agent_rank_throughput{namespace="team-a",job_name="llama"})', name: "job total" },
      {
        query: 'max(rebound_agent_rank_throughput{namespace="team-a",job_name="llama",rank="2"})',
        name: "rank 2",
      },
    ]);
    expect(jobQueries(ref, "loss", { stepSeconds: 5 }).map((q) => q.query)).toEqual([
      'avg(rebound_agent_rank_loss{namespace="team-a",job_name="llama"})',
    ]);
    expect(jobQueries(ref, "heartbeat_age", { stepSeconds: 5 })[0]?.query).toBe(
      'max(rebound_agent_rank_last_log_age_seconds{namespace="team-a",job_name="llama"})',
    );
    expect(jobQueries(ref, "ranks", { stepSeconds: 5 }).map((q) => q.name)).toEqual(["running", "total"]);
  });

  it("charts the operator's series: restarts by type, latency per recovery over the step", () => {
    const [restarts] = jobQueries(ref, "restarts", { stepSeconds: 15 });
    expect(restarts).toEqual({
      query:
        'sum by (restart_type) (hyperpod_training_operator_jobs_restarted_total{namespace="team-a",job_name="llama"})',
      name: "restarts",
      nameBy: "restart_type",
    });
    const [latency] = jobQueries(ref, "restart_latency", { stepSeconds: 60 });
    expect(latency?.query).toContain("hyperpod_training_operator_jobs_restart_latency_sum{");
    expect(latency?.query).toContain("offset 1m) or vector(0)");
    const [detection] = jobQueries(ref, "detection_latency", { stepSeconds: 15 });
    expect(detection?.query).toContain("hyperpod_training_operator_jobs_fault_detection_latency_count{");
  });

  it("scopes cluster series to the namespaces given, and asks nothing for an empty scope", () => {
    expect(clusterQueries("throughput", { namespaces: ["a", "b"] }, 5)).toEqual([
      { query: 'sum(rebound_agent_rank_throughput{namespace=~"a|b"})', name: "cluster total" },
    ]);
    expect(clusterQueries("restarts", { namespaces: "all" }, 5)?.[0]?.query).toBe(
      "sum by (restart_type) (hyperpod_training_operator_jobs_restarted_total)",
    );
    expect(clusterQueries("throughput", { namespaces: [] }, 5)).toBeNull();
  });
});
