import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { startPrometheus, type TestPrometheus } from "@/test/prometheus";
import { runPromtool } from "./promtool";
import {
  allPanels,
  type Dashboard,
  dashboardQueries,
  knownMetricNames,
  loadDashboards,
  loadRules,
  metricNames,
  PROMETHEUS_DIR,
  type Query,
  ROOT,
  ruleQueries,
  sampleExpositions,
  unknownMetrics,
} from "./testing/dashboards";

/**
 * Dashboards and alerts as code (deploy/chart/files/grafana, deploy/prometheus/alerting-rules.yaml): the dashboards
 * are classic Grafana JSON with stable uids and a Prometheus datasource variable; every PromQL expression
 * in them and in the rules selects only series the operator and agents register (their real registries),
 * the recording rules record or Prometheus writes; a real Prometheus, scraping those registries and
 * running the rules, answers every dashboard query with data; promtool checks and unit-tests the alerts.
 */
let dashboards: { file: string; dashboard: Dashboard }[];
let known: Set<string>;

beforeAll(async () => {
  dashboards = await loadDashboards();
  known = await knownMetricNames();
});

const allDashboardQueries = () =>
  dashboards.flatMap(({ file, dashboard }) => dashboardQueries(file, dashboard));

describe("the Grafana dashboards", () => {
  it("are classic dashboards with unique uids (their file names) and schemaVersion 39 to 41", () => {
    expect(dashboards.map(({ file }) => file)).toEqual([
      "rebound-operator.json",
      "rebound-recovery.json",
      "rebound-training.json",
    ]);
    for (const { file, dashboard } of dashboards) {
      expect(`${dashboard.uid}.json`).toBe(file);
      expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(39);
      expect(dashboard.schemaVersion).toBeLessThanOrEqual(41);
    }
    expect(new Set(dashboards.map(({ dashboard }) => dashboard.uid)).size).toBe(dashboards.length);
  });

  it("query through a Prometheus datasource variable, with unique panel ids", () => {
    for (const { file, dashboard } of dashboards) {
      expect(dashboard.templating.list[0], file).toMatchObject({
        name: "datasource",
        type: "datasource",
        query: "prometheus",
      });
      const panels = allPanels(dashboard);
      expect(new Set(panels.map((panel) => panel.id)).size, file).toBe(panels.length);
      for (const panel of panels.filter((p) => p.type !== "row")) {
        const where = `${file}: ${panel.title}`;
        expect(panel.datasource, where).toEqual({ type: "prometheus", uid: `\${datasource}` });
        expect(panel.targets?.length, where).toBeGreaterThan(0);
        for (const target of panel.targets ?? []) expect(target.datasource, where).toEqual(panel.datasource);
      }
    }
  });

  it("cover recovery latency, restarts by reason, goodput, rank health and the work queue", () => {
    const titles = dashboards.flatMap(({ dashboard }) => allPanels(dashboard).map((panel) => panel.title));
    for (const title of [
      "Restart latency",
      "Faults by reason",
      "Restarts by restart type",
      "Goodput (control plane)",
      "Ranks by state",
      "Work queue depth",
      "Jobs created, completed, failed, deleted",
    ])
      expect(titles).toContain(title);
  });

  it("have a file provisioning provider", async () => {
    const file = path.join(ROOT, "deploy/chart/files/grafana/provisioning/dashboards.yaml");
    const config = parse(await readFile(file, "utf8")) as { apiVersion: number; providers: unknown[] };
    expect(config.apiVersion).toBe(1);
    expect(config.providers).toEqual([
      expect.objectContaining({
        type: "file",
        options: expect.objectContaining({ path: expect.any(String) }),
      }),
    ]);
  });
});

describe("metric names in dashboards and rules", () => {
  it("are all registered by the operator or the agents, recorded by a rule, or written by Prometheus", async () => {
    const queries: Query[] = [
      ...allDashboardQueries(),
      ...ruleQueries("alerting-rules.yaml", await loadRules("alerting-rules.yaml")),
      ...ruleQueries("recording-rules.yaml", await loadRules("recording-rules.yaml")),
    ];
    expect(queries.length).toBeGreaterThan(60);
    expect(unknownMetrics(queries, known)).toEqual([]);
    // The check sees the names: every dashboard selects some.
    expect(metricNames(allDashboardQueries()[0]?.expr ?? "").length).toBeGreaterThan(0);
  });

  it("catch a panel that names a metric nobody registers", () => {
    const [first] = dashboards;
    if (!first) throw new Error("no dashboards");
    const broken: Dashboard = structuredClone(first.dashboard);
    const target = allPanels(broken).find((panel) => panel.targets?.length)?.targets?.[0];
    if (!target) throw new Error("no targets");
    target.expr = 'sum by (namespace) (rate(rebound_operator_restarts_total{namespace=~"$namespace"}[5m]))';
    expect(unknownMetrics(dashboardQueries(first.file, broken), known)).toEqual([
      expect.stringMatching(/: rebound_operator_restarts_total$/),
    ]);
  });

  it("are read from PromQL, not from label names, functions, keywords or numbers", () => {
    expect(
      metricNames(
        'histogram_quantile(0.99, sum by (le, job_name) (rate(a_bucket{le="+Inf", x=~"$v"}[$__rate_interval] offset 5m))) / on (job_name) group_left (namespace) b:c:rate5m > bool 1e3 or vector(0)',
      ).sort(),
    ).toEqual(["a_bucket", "b:c:rate5m"]);
  });
});

describe("deploy/prometheus/alerting-rules.yaml", () => {
  it("is accepted by promtool", async () => {
    const result = await runPromtool(["check", "rules", path.join(PROMETHEUS_DIR, "alerting-rules.yaml")]);
    expect(result.output).toContain("SUCCESS: 10 rules found");
    expect(result.ok).toBe(true);
  });

  it("passes its promtool unit tests (tests/*.yaml)", async () => {
    const dir = path.join(PROMETHEUS_DIR, "tests");
    const files = (await readdir(dir)).filter((name) => name.endsWith(".yaml"));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const result = await runPromtool(["test", "rules", file], { cwd: dir, timeoutMs: 30_000 });
      expect(result.output, file).toContain("SUCCESS");
      expect(result.ok, file).toBe(true);
    }
  });
});

/** Grafana's variables as Grafana sends them for "All" and a 1-minute range with 1 s scrapes. */
function substitute(expr: string): string {
  return expr
    .replaceAll("$__rate_interval", "10s")
    .replaceAll("$__range_s", "60")
    .replaceAll("$__range", "1m")
    .replace(/\$(namespace|job)\b/g, ".*");
}

describe("every dashboard query, against a real Prometheus scraping the real registries", () => {
  let prometheus: TestPrometheus;
  let exporter: Server;
  let dir: string;

  beforeAll(async () => {
    const { operator, agent } = await sampleExpositions();
    exporter = createServer((request, response) => {
      response.writeHead(200, { "content-type": "text/plain; version=0.0.4" });
      response.end(request.url === "/operator" ? operator : agent);
    });
    await new Promise<void>((resolve) => exporter.listen(0, "127.0.0.1", resolve));
    const address = exporter.address();
    const target = `127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
    dir = await mkdtemp(path.join(tmpdir(), "rebound-dashboards-"));
    // The deployed rules, evaluated every second so the recording rules' series appear at once.
    const ruleFiles = await Promise.all(
      ["recording-rules.yaml", "alerting-rules.yaml"].map(async (name) => {
        const rules = await loadRules(name);
        const file = path.join(dir, name);
        await writeFile(
          file,
          stringify({ groups: rules.groups.map((group) => ({ ...group, interval: "1s" })) }),
        );
        return file;
      }),
    );
    const config = {
      global: { scrape_interval: "1s", evaluation_interval: "1s" },
      rule_files: ruleFiles,
      scrape_configs: [
        {
          job_name: "rebound-operator",
          honor_labels: true,
          metrics_path: "/operator",
          static_configs: [{ targets: [target], labels: { operator_pod: "rebound-operator-0" } }],
        },
        {
          job_name: "rebound-agents",
          metrics_path: "/agent",
          static_configs: [
            {
              targets: [target],
              labels: { namespace: "team-a", job_name: "llama", pod: "llama-worker-0", node: "gpu-node-3" },
            },
          ],
        },
      ],
    };
    prometheus = await startPrometheus({ config: stringify(config) });
  }, 60_000);

  afterAll(async () => {
    await prometheus?.stop();
    await new Promise((resolve) => exporter?.close(resolve));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const query = async (expr: string): Promise<{ status: string; data?: { result: unknown[] } }> => {
    const url = `${prometheus.url}/api/v1/query?query=${encodeURIComponent(expr)}`;
    return (await (await fetch(url)).json()) as { status: string; data?: { result: unknown[] } };
  };

  it("answers each panel and variable query with at least one series", async () => {
    const queries = allDashboardQueries();
    const emptyAnswers = async () => {
      const empty: string[] = [];
      for (const { where, expr } of queries) {
        const answer = await query(substitute(expr));
        expect(answer.status, `${where}: ${expr}`).toBe("success");
        if ((answer.data?.result.length ?? 0) === 0) empty.push(`${where}: ${expr}`);
      }
      return empty;
    };
    // Polled until the first scrapes and rule evaluations are in (a rate needs two samples of each target).
    await expect.poll(emptyAnswers, { timeout: 20_000, interval: 500 }).toEqual([]);
    // And a name nobody exports gives nothing, so the check above can fail.
    expect((await query('sum(rebound_operator_restarts_total{namespace=~".*"})')).data?.result).toEqual([]);
  });
});
