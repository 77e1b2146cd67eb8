import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { startPrometheus, type TestPrometheus } from "@/test/prometheus";
import { runPromtool } from "./promtool";

/**
 * deploy/prometheus/ checked by the real tools: promtool on the recording rules (syntax, then `test rules`
 * with input series and the values each rule must record), and the scrape config. Debian's Prometheus is
 * built without Kubernetes service discovery, so the config is checked, and its relabelling run by a real
 * Prometheus, with each kubernetes_sd_configs swapped for a file_sd whose targets carry the __meta_kubernetes_*
 * labels Kubernetes discovery would give: the labels the console queries by must come out of it.
 */
const DEPLOY = path.resolve(import.meta.dirname, "../../deploy/prometheus");
const RULES = path.join(DEPLOY, "recording-rules.yaml");
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "rebound-deploy-prometheus-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

type ScrapeConfig = Record<string, unknown> & { job_name: string; kubernetes_sd_configs?: unknown };

/** The deployed config with Kubernetes discovery replaced by a file_sd targets file per job. */
async function withFileDiscovery(): Promise<{ text: string; targets: (job: string) => string }> {
  const { readFile } = await import("node:fs/promises");
  const config = parse(await readFile(path.join(DEPLOY, "scrape-config.yaml"), "utf8")) as {
    rule_files: string[];
    scrape_configs: ScrapeConfig[];
  };
  const targets = (job: string) => path.join(dir, `${job}.json`);
  config.rule_files = config.rule_files.map((file) => path.join(DEPLOY, file));
  config.scrape_configs = config.scrape_configs.map(({ kubernetes_sd_configs, ...job }) => {
    expect(kubernetes_sd_configs).toBeDefined();
    return { ...job, file_sd_configs: [{ files: [targets(job.job_name)], refresh_interval: "1s" }] };
  });
  return { text: stringify(config), targets };
}

describe("deploy/prometheus", () => {
  it("has recording rules promtool accepts", async () => {
    const result = await runPromtool(["check", "rules", RULES]);
    expect(result.output).toContain("SUCCESS: 13 rules found");
    expect(result.ok).toBe(true);
  });

  it("records job throughput, mean loss, restart rate and latency quantiles from agent and operator series", async () => {
    const test = path.join(dir, "rules-test.yaml");
    const job = 'namespace="team-a",job_name="llama"';
    await writeFile(
      test,
      stringify({
        rule_files: [RULES],
        evaluation_interval: "15s",
        tests: [
          {
            interval: "15s",
            input_series: [
              { series: `rebound_agent_rank_throughput{${job},rank="0"}`, values: "1000x20" },
              { series: `rebound_agent_rank_throughput{${job},rank="1"}`, values: "1200x20" },
              { series: `rebound_agent_rank_loss{${job},rank="0"}`, values: "2x20" },
              { series: `rebound_agent_rank_loss{${job},rank="1"}`, values: "4x20" },
              // One PLR per minute; every restart took 0.4 s (bucket le=0.5).
              {
                series: `hyperpod_training_operator_jobs_restarted_total{${job},restart_type="PLR"}`,
                values: "0+0.25x40",
              },
              {
                series: `hyperpod_training_operator_jobs_restart_latency_bucket{${job},restart_type="PLR",le="0.25"}`,
                values: "0x40",
              },
              {
                series: `hyperpod_training_operator_jobs_restart_latency_bucket{${job},restart_type="PLR",le="0.5"}`,
                values: "0+0.25x40",
              },
              {
                series: `hyperpod_training_operator_jobs_restart_latency_bucket{${job},restart_type="PLR",le="+Inf"}`,
                values: "0+0.25x40",
              },
            ],
            promql_expr_test: [
              {
                expr: "job:rebound_agent_rank_throughput:sum",
                eval_time: "2m",
                exp_samples: [{ labels: `job:rebound_agent_rank_throughput:sum{${job}}`, value: 2200 }],
              },
              {
                expr: "job:rebound_agent_rank_loss:avg",
                eval_time: "2m",
                exp_samples: [{ labels: `job:rebound_agent_rank_loss:avg{${job}}`, value: 3 }],
              },
              {
                expr: "namespace:rebound_agent_rank_throughput:sum",
                eval_time: "2m",
                exp_samples: [
                  { labels: 'namespace:rebound_agent_rank_throughput:sum{namespace="team-a"}', value: 2200 },
                ],
              },
              {
                expr: "job:hyperpod_training_operator_jobs_restarted:rate5m",
                eval_time: "8m",
                exp_samples: [
                  {
                    labels: `job:hyperpod_training_operator_jobs_restarted:rate5m{${job},restart_type="PLR"}`,
                    value: 1 / 60,
                  },
                ],
              },
              {
                expr: "job:hyperpod_training_operator_jobs_restart_latency:p50_1h",
                eval_time: "8m",
                // Linear interpolation within the 0.25–0.5 s bucket: its middle.
                exp_samples: [
                  {
                    labels: `job:hyperpod_training_operator_jobs_restart_latency:p50_1h{${job}}`,
                    value: 0.375,
                  },
                ],
              },
            ],
          },
        ],
      }),
    );
    const result = await runPromtool(["test", "rules", test]);
    expect(result.output).toContain("SUCCESS");
    expect(result.ok).toBe(true);
  });

  it("has a scrape config promtool accepts (with file discovery in place of Kubernetes discovery)", async () => {
    const { text } = await withFileDiscovery();
    const file = path.join(dir, "prometheus.yml");
    await writeFile(file, text);
    const result = await runPromtool(["check", "config", file]);
    expect(result.output).toContain("SUCCESS");
    expect(result.ok).toBe(true);
  });

  describe("relabelling, run by a real Prometheus", () => {
    let prometheus: TestPrometheus;
    beforeAll(async () => {
      const { text, targets } = await withFileDiscovery();
      const pod = (name: string, port: string, extra: Record<string, string> = {}) => ({
        targets: ["10.0.0.7:0"],
        labels: {
          __meta_kubernetes_namespace: "hyperpod-ns-llm-research",
          __meta_kubernetes_pod_name: name,
          __meta_kubernetes_pod_ip: "10.0.0.7",
          __meta_kubernetes_pod_node_name: "gpu-node-3",
          __meta_kubernetes_pod_phase: "Running",
          __meta_kubernetes_pod_container_port_number: port,
          __meta_kubernetes_pod_label_HPJob: "llama",
          ...extra,
        },
      });
      await writeFile(
        targets("rebound-agents"),
        JSON.stringify([
          pod("llama-worker-0", "8080"),
          pod("llama-worker-0", "29500"),
          pod("other-pod", "", { __meta_kubernetes_pod_label_HPJob: "" }),
          pod("llama-worker-1", "", { __meta_kubernetes_pod_phase: "Pending" }),
        ]),
      );
      await writeFile(
        targets("rebound-operator"),
        JSON.stringify([
          {
            targets: ["10.0.1.2:8082"],
            labels: {
              __meta_kubernetes_service_name: "rebound-operator",
              __meta_kubernetes_endpoint_port_name: "metrics",
              __meta_kubernetes_pod_name: "rebound-operator-7d9f-abcde",
            },
          },
          {
            targets: ["10.0.1.2:8081"],
            labels: {
              __meta_kubernetes_service_name: "rebound-operator",
              __meta_kubernetes_endpoint_port_name: "api",
              __meta_kubernetes_pod_name: "rebound-operator-7d9f-abcde",
            },
          },
        ]),
      );
      prometheus = await startPrometheus({ config: text });
    }, 60_000);
    afterAll(async () => {
      await prometheus?.stop();
    });

    it("labels each job pod's agent with namespace, job_name, pod and node on :8080, and the operator's metrics port", async () => {
      type Target = { labels: Record<string, string>; scrapePool: string };
      const active = async () => {
        const response = await fetch(`${prometheus.url}/api/v1/targets?state=active`);
        const body = (await response.json()) as { data: { activeTargets: Target[] } };
        return body.data.activeTargets.map((target) => ({ pool: target.scrapePool, ...target.labels }));
      };
      await expect.poll(async () => (await active()).length, { timeout: 20_000 }).toBe(2);
      expect(await active()).toEqual(
        expect.arrayContaining([
          {
            pool: "rebound-agents",
            instance: "10.0.0.7:8080",
            job: "rebound-agents",
            namespace: "hyperpod-ns-llm-research",
            job_name: "llama",
            pod: "llama-worker-0",
            node: "gpu-node-3",
          },
          {
            pool: "rebound-operator",
            instance: "10.0.1.2:8082",
            job: "rebound-operator",
            operator_pod: "rebound-operator-7d9f-abcde",
          },
        ]),
      );
    });
  });
});
