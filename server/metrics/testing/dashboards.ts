import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { parse } from "yaml";
import { z } from "zod";
import { createAgentMetrics } from "@/server/agent/metrics";
import { createRankRecord, recordLine } from "@/server/agent/rank-record";
import { createRankLogMonitor } from "@/server/domain/log-rules/rank-monitor";
import { createOperatorMetrics } from "@/server/operator/metrics";

/**
 * the chart's Grafana dashboards and deploy/prometheus's rules read for the tests, the PromQL in them, and
 * which metric names exist: those the operator's and the agents' real registries expose, the recording
 * rules' names, and the series Prometheus writes itself.
 */
export const ROOT = path.resolve(import.meta.dirname, "../../..");
export const DASHBOARD_DIR = path.join(ROOT, "deploy/chart/files/grafana/dashboards");
export const PROMETHEUS_DIR = path.join(ROOT, "deploy/prometheus");

const targetSchema = z.object({
  expr: z.string().min(1),
  refId: z.string(),
  datasource: z.object({ type: z.string(), uid: z.string() }),
});
export type PanelSchemaShape = {
  id: number;
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  targets?: z.infer<typeof targetSchema>[];
  panels?: PanelSchemaShape[];
};
const panelSchema: z.ZodType<PanelSchemaShape> = z.lazy(() =>
  z.object({
    id: z.number().int(),
    type: z.string(),
    title: z.string().min(1),
    datasource: z.object({ type: z.string(), uid: z.string() }).optional(),
    targets: z.array(targetSchema).optional(),
    panels: z.array(panelSchema).optional(),
  }),
);
const variableSchema = z.object({
  name: z.string(),
  type: z.string(),
  query: z.union([z.string(), z.object({ query: z.string() })]).optional(),
});
export const dashboardSchema = z.object({
  uid: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/),
  title: z.string().min(1),
  schemaVersion: z.number().int(),
  id: z.null(),
  panels: z.array(panelSchema).min(1),
  templating: z.object({ list: z.array(variableSchema) }),
});
export type Dashboard = z.infer<typeof dashboardSchema>;

export async function loadDashboards(): Promise<{ file: string; dashboard: Dashboard }[]> {
  const files = (await readdir(DASHBOARD_DIR)).filter((name) => name.endsWith(".json")).sort();
  return Promise.all(
    files.map(async (file) => {
      const result = dashboardSchema.safeParse(
        JSON.parse(await readFile(path.join(DASHBOARD_DIR, file), "utf8")),
      );
      if (!result.success) throw new Error(`${file}: ${z.prettifyError(result.error)}`);
      return { file, dashboard: result.data };
    }),
  );
}

/** Every panel, rows' nested panels included. */
export function allPanels(dashboard: Pick<Dashboard, "panels">): PanelSchemaShape[] {
  return dashboard.panels.flatMap((panel) => [panel, ...allPanels({ panels: panel.panels ?? [] })]);
}

/** A query and where it came from ("rebound-recovery.json: Restarts"). */
export type Query = { where: string; expr: string };

/** Panel queries, and variables' `label_values(<selector>, label)` selectors (as PromQL). */
export function dashboardQueries(file: string, dashboard: Dashboard): Query[] {
  const panels = allPanels(dashboard).flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({ where: `${file}: ${panel.title}`, expr: target.expr })),
  );
  const variables = dashboard.templating.list.flatMap((variable) => {
    const query = typeof variable.query === "object" ? variable.query.query : variable.query;
    const selector =
      variable.type === "query" ? /^label_values\((.+),\s*\w+\)$/.exec(query ?? "")?.[1] : undefined;
    return selector ? [{ where: `${file}: $${variable.name}`, expr: selector }] : [];
  });
  return [...panels, ...variables];
}

type RuleFile = { groups: { name: string; rules: { record?: string; alert?: string; expr: string }[] }[] };

export async function loadRules(name: string): Promise<RuleFile> {
  return parse(await readFile(path.join(PROMETHEUS_DIR, name), "utf8")) as RuleFile;
}

export function ruleQueries(file: string, rules: RuleFile): Query[] {
  return rules.groups.flatMap((group) =>
    group.rules.map((rule) => ({ where: `${file}: ${rule.record ?? rule.alert}`, expr: rule.expr })),
  );
}

/** Words PromQL uses that are not metric names when no `(` follows them. */
const KEYWORDS = new Set([
  "by",
  "without",
  "on",
  "ignoring",
  "group_left",
  "group_right",
  "bool",
  "and",
  "or",
  "unless",
  "offset",
  "inf",
  "nan",
]);

/**
 * The metric names a PromQL expression selects: identifiers left once strings, label matchers, ranges,
 * Grafana's $variables, label lists of by/without/on/ignoring/group_*, durations and numbers are removed,
 * other than functions and aggregations (followed by "(") and keywords.
 */
export function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\$\{?\w+\}?/g, "1")
    .replace(/\{[^}]*\}/g, " ")
    .replace(/\[[^\]]*\]/g, " ")
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/gi, " ")
    .replace(/\b\d+(?:ms|[smhdwy])\b/g, " ")
    .replace(/(?:\b|\.)\d+(?:\.\d*)?(?:e[+-]?\d+)?\b/gi, " ");
  const names = new Set<string>();
  for (const match of stripped.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const rest = stripped.slice((match.index ?? 0) + match[0].length).trimStart();
    if (rest.startsWith("(") || KEYWORDS.has(match[0].toLowerCase())) continue;
    names.add(match[0]);
  }
  return [...names];
}

/** Series Prometheus adds to every scrape target, and its alert series. */
export const PROMETHEUS_SERIES = [
  "up",
  "scrape_duration_seconds",
  "scrape_samples_scraped",
  "scrape_samples_post_metric_relabeling",
  "scrape_series_added",
  "ALERTS",
  "ALERTS_FOR_STATE",
];

/** The operator's and an agent's /metrics with every family holding a series (as after a fault and a restart). */
export async function sampleExpositions(): Promise<{ operator: string; agent: string }> {
  const operator = createOperatorMetrics();
  const job = { namespace: "team-a", job_name: "llama" };
  operator.created.inc({ namespace: "team-a" });
  for (const counter of [operator.deleted, operator.successful, operator.failed])
    counter.inc({ namespace: "team-a" }, 0);
  operator.restarted.inc({ ...job, restart_type: "PLR" });
  operator.restartLatency.observe({ ...job, restart_type: "PLR" }, 4.2);
  operator.detectionLatency.observe({ ...job, fault_reason: "WorkerCrash" }, 0.3);
  operator.reconcileSeconds.observe(0.004);
  operator.reconcileErrors.inc(0);
  operator.agentPollErrors.inc({ cause: "timeout" });
  for (const counter of [
    operator.agentPolls,
    operator.agentPushLines,
    operator.agentHeartbeats,
    operator.agentSilences,
  ])
    counter.inc();
  operator.activeJobs.set(1);
  operator.queueDepth.set(0);

  const monitor = createRankLogMonitor({
    rules: [{ name: "Loss", logPattern: ".*loss=(\\S+).*", metricThreshold: 100, operator: "gt" }],
    now: Date.now,
  });
  if (!monitor.ok) throw new Error(monitor.reason);
  const rank = createRankRecord({ localRank: 0, rank: 0, restarts: 1, monitor: monitor.monitor });
  rank.state = "running";
  recordLine(rank, { line: "step=12 loss=1.25 throughput=350.5", at: Date.now() });
  const agent = createAgentMetrics();
  agent.recordAttempt();
  agent.recordFault("WorkerCrash");
  return {
    operator: await operator.registry.render(),
    agent: await agent.render({ state: "RUNNING", ranks: [rank], now: Date.now() }),
  };
}

/** The series names an exposition holds: each family's name, a histogram's as _bucket, _sum and _count. */
export function exposedNames(text: string): string[] {
  return [...text.matchAll(/^# TYPE (\S+) (\w+)$/gm)].flatMap(([, name = "", type]) =>
    type === "histogram" || type === "summary"
      ? [`${name}_bucket`, `${name}_sum`, `${name}_count`].slice(type === "summary" ? 1 : 0)
      : [name],
  );
}

/** Every name a query may select. */
export async function knownMetricNames(): Promise<Set<string>> {
  const { operator, agent } = await sampleExpositions();
  const recording = (await loadRules("recording-rules.yaml")).groups.flatMap((group) =>
    group.rules.flatMap((rule) => (rule.record ? [rule.record] : [])),
  );
  return new Set([...exposedNames(operator), ...exposedNames(agent), ...recording, ...PROMETHEUS_SERIES]);
}

/** "where: name" for each name a query selects that is not in `known`. */
export function unknownMetrics(queries: Query[], known: Set<string>): string[] {
  return queries.flatMap((query) =>
    metricNames(query.expr)
      .filter((name) => !known.has(name))
      .map((name) => `${query.where}: ${name}`),
  );
}
