import { Counter, register } from "prom-client";
import { describe, expect, it } from "vitest";
import { createOperatorMetrics } from "@/server/operator/metrics";
import { createRegistry, DEFAULT_LATENCY_BUCKETS_SECONDS, PROMETHEUS_CONTENT_TYPE } from "./exposition";

describe("metrics registries", () => {
  it("are prom-client registries of their own: two operators do not share series, the global one stays empty", async () => {
    const first = createOperatorMetrics();
    const second = createOperatorMetrics();
    first.created.inc({ namespace: "a" });
    expect(await first.registry.render()).toContain(
      'hyperpod_training_operator_jobs_created_total{namespace="a"} 1',
    );
    expect(await second.registry.render()).not.toContain('namespace="a"');
    expect(await register.metrics()).toBe("\n");
  });

  it("export no default process metrics", async () => {
    const text = await createOperatorMetrics().registry.render();
    expect(text).not.toMatch(/^(process|nodejs)_/m);
    expect(text.match(/^# TYPE /gm)).toHaveLength(17);
  });

  it("render what is registered, in registration order", async () => {
    const registry = createRegistry();
    expect(await registry.render()).toBe("\n");
    new Counter({ name: "b_total", help: "B.", registers: [registry] }).inc(2);
    new Counter({ name: "a_total", help: "A.", registers: [registry] });
    expect(await registry.render()).toBe(
      "# HELP b_total B.\n# TYPE b_total counter\nb_total 2\n\n# HELP a_total A.\n# TYPE a_total counter\na_total 0\n",
    );
  });

  it("serve the text format 0.0.4 with the default latency buckets", () => {
    expect(PROMETHEUS_CONTENT_TYPE).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(DEFAULT_LATENCY_BUCKETS_SECONDS).toEqual([
      0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300,
    ]);
  });
});
