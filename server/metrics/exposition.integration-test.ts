import { describe, expect, it } from "vitest";
import { createRegistry, DEFAULT_LATENCY_BUCKETS_SECONDS } from "./exposition";
import { promtoolCheckMetrics } from "./promtool";

/** Label values that exercise every escape and a few characters that are special elsewhere in the format. */
const AWKWARD = ["back\\slash", 'double "quote"', "new\nline", "ünïcødé 🚀", "{braces}=,#", "", " spaced "];

function fullRegistry() {
  const registry = createRegistry();
  const created = registry.counter({
    name: "hyperpod_training_operator_jobs_created_total",
    help: "Total number of jobs that the training operator has run.",
    labelNames: ["namespace"],
  });
  const plain = registry.counter({
    name: "rebound_reconciles_total",
    help: 'Reconciles, "all" of them\\\nsecond line.',
  });
  const gauge = registry.gauge({
    name: "rebound_value",
    help: "Awkward values.",
    labelNames: ["value", "kind"],
  });
  const latency = registry.histogram({
    name: "hyperpod_training_operator_jobs_restart_latency_seconds",
    help: "Job restart latency.",
    labelNames: ["namespace", "restart_type"],
    buckets: DEFAULT_LATENCY_BUCKETS_SECONDS,
  });
  registry.gauge({
    name: "rebound_unused",
    help: "A labelled family with no series yet.",
    labelNames: ["x"],
  });
  registry.histogram({
    name: "rebound_empty_seconds",
    help: "Label-less histogram, no observations.",
    buckets: [1],
  });

  plain.inc();
  AWKWARD.forEach((value, index) => {
    created.inc({ namespace: value }, index);
    gauge.set({ value, kind: "plain" }, index - 3.5);
    latency.observe({ namespace: value, restart_type: "PLR" }, index * 17.3);
  });
  const specials: [string, number][] = [
    ["nan", Number.NaN],
    ["inf", Number.POSITIVE_INFINITY],
    ["ninf", Number.NEGATIVE_INFINITY],
    ["big", 1e21],
    ["tiny", 1e-9],
  ];
  for (const [kind, value] of specials) gauge.set({ value: "special", kind }, value);
  latency.observe({ namespace: "x", restart_type: "JLR" }, 1e6);
  return registry;
}

describe("promtool check metrics", () => {
  it("accepts a registry with every metric type, awkward labels and special values", async () => {
    const text = fullRegistry().render();
    expect(text).toContain('namespace="new\\nline"');
    expect(text).toContain('le="+Inf"');
    const result = await promtoolCheckMetrics(text);
    expect(result).toEqual({ ok: true, output: "" });
  });

  it("rejects a syntax error (so promtool really reads what we send)", async () => {
    const result = await promtoolCheckMetrics('# HELP a A.\n# TYPE a gauge\na{b="unterminated} 1\n');
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/parsing error/);
  });

  it("rejects lint problems: a counter without _total and a metric without HELP", async () => {
    const result = await promtoolCheckMetrics("# TYPE jobs counter\njobs 1\n");
    expect(result.ok).toBe(false);
    expect(result.output).toContain('counter metrics should have "_total" suffix');
    expect(result.output).toContain("no help text");
  });

  it("throws when the binary cannot be started", async () => {
    await expect(promtoolCheckMetrics("", { binary: "/nonexistent/promtool" })).rejects.toThrow(
      /cannot run "\/nonexistent\/promtool check metrics"/,
    );
  });
});
