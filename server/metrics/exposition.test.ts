import { describe, expect, it } from "vitest";
import { createRegistry } from "./exposition";

describe("counter", () => {
  it("renders a label-less counter from registration on, then its increments", () => {
    const registry = createRegistry();
    const created = registry.counter({ name: "jobs_created_total", help: "Jobs created." });
    expect(registry.render()).toBe(
      "# HELP jobs_created_total Jobs created.\n# TYPE jobs_created_total counter\njobs_created_total 0\n",
    );
    created.inc();
    created.inc(undefined, 2.5);
    created.inc({});
    expect(registry.render()).toBe(
      "# HELP jobs_created_total Jobs created.\n# TYPE jobs_created_total counter\njobs_created_total 4.5\n",
    );
  });

  it("keeps labelNames order and label-set insertion order", () => {
    const registry = createRegistry();
    const restarts = registry.counter({
      name: "restarts_total",
      help: "Restarts.",
      labelNames: ["namespace", "job_name"],
    });
    restarts.inc({ job_name: "b", namespace: "ns" });
    restarts.inc({ namespace: "ns", job_name: "a" }, 3);
    restarts.inc({ namespace: "ns", job_name: "b" });
    expect(registry.render()).toBe(
      [
        "# HELP restarts_total Restarts.",
        "# TYPE restarts_total counter",
        'restarts_total{namespace="ns",job_name="b"} 2',
        'restarts_total{namespace="ns",job_name="a"} 3',
        "",
      ].join("\n"),
    );
  });

  it("renders HELP and TYPE for a labelled family that has no series yet", () => {
    const registry = createRegistry();
    registry.counter({ name: "a_total", help: "A.", labelNames: ["x"] });
    expect(registry.render()).toBe("# HELP a_total A.\n# TYPE a_total counter\n");
  });

  it("refuses negative and NaN increments", () => {
    const counter = createRegistry().counter({ name: "a_total", help: "A." });
    expect(() => counter.inc(undefined, -1)).toThrow(
      'metric "a_total": expected a non-negative number, got -1',
    );
    expect(() => counter.inc(undefined, Number.NaN)).toThrow("got NaN");
  });
});

describe("gauge", () => {
  it("sets, increments, decrements, removes and resets series", () => {
    const registry = createRegistry();
    const running = registry.gauge({
      name: "jobs_running",
      help: "Running jobs.",
      labelNames: ["namespace"],
    });
    running.set({ namespace: "a" }, 5);
    running.inc({ namespace: "b" });
    running.dec({ namespace: "a" }, 2);
    running.inc({ namespace: "c" }, 0.5);
    running.remove({ namespace: "b" });
    expect(registry.render()).toBe(
      [
        "# HELP jobs_running Running jobs.",
        "# TYPE jobs_running gauge",
        'jobs_running{namespace="a"} 3',
        'jobs_running{namespace="c"} 0.5',
        "",
      ].join("\n"),
    );
    running.reset();
    expect(registry.render()).toBe("# HELP jobs_running Running jobs.\n# TYPE jobs_running gauge\n");
  });

  it("puts a label-less gauge back to 0 on remove and reset", () => {
    const registry = createRegistry();
    const up = registry.gauge({ name: "up", help: "Up." });
    up.set({}, 1);
    expect(registry.render()).toContain("\nup 1\n");
    up.reset();
    expect(registry.render()).toContain("\nup 0\n");
    up.inc();
    up.remove({});
    expect(registry.render()).toContain("\nup 0\n");
  });

  it("renders special and awkward numbers the way Prometheus parses them", () => {
    const registry = createRegistry();
    const value = registry.gauge({ name: "value", help: "V.", labelNames: ["case"] });
    const cases: [string, number][] = [
      ["nan", Number.NaN],
      ["pos_inf", Number.POSITIVE_INFINITY],
      ["neg_inf", Number.NEGATIVE_INFINITY],
      ["neg_zero", -0],
      ["big_int", 12_345_678_901_234],
      ["million", 1e6],
      ["tiny", 1e-7],
      ["huge", 1e21],
      ["fraction", -0.25],
    ];
    for (const [name, number] of cases) value.set({ case: name }, number);
    expect(registry.render().split("\n").slice(2, -1)).toEqual([
      'value{case="nan"} NaN',
      'value{case="pos_inf"} +Inf',
      'value{case="neg_inf"} -Inf',
      'value{case="neg_zero"} 0',
      'value{case="big_int"} 12345678901234',
      'value{case="million"} 1000000',
      'value{case="tiny"} 1e-7',
      'value{case="huge"} 1e+21',
      'value{case="fraction"} -0.25',
    ]);
  });
});

describe("histogram", () => {
  it("renders cumulative buckets including +Inf, then _sum and _count", () => {
    const registry = createRegistry();
    const latency = registry.histogram({
      name: "restart_latency_seconds",
      help: "Restart latency.",
      labelNames: ["restart_type"],
      buckets: [0.5, 1, 2.5],
    });
    for (const value of [0.2, 0.5, 0.7, 2, 9]) latency.observe({ restart_type: "PLR" }, value);
    latency.observe({ restart_type: "JLR" }, 1);
    expect(registry.render()).toBe(
      [
        "# HELP restart_latency_seconds Restart latency.",
        "# TYPE restart_latency_seconds histogram",
        'restart_latency_seconds_bucket{restart_type="PLR",le="0.5"} 2',
        'restart_latency_seconds_bucket{restart_type="PLR",le="1"} 3',
        'restart_latency_seconds_bucket{restart_type="PLR",le="2.5"} 4',
        'restart_latency_seconds_bucket{restart_type="PLR",le="+Inf"} 5',
        'restart_latency_seconds_sum{restart_type="PLR"} 12.4',
        'restart_latency_seconds_count{restart_type="PLR"} 5',
        'restart_latency_seconds_bucket{restart_type="JLR",le="0.5"} 0',
        'restart_latency_seconds_bucket{restart_type="JLR",le="1"} 1',
        'restart_latency_seconds_bucket{restart_type="JLR",le="2.5"} 1',
        'restart_latency_seconds_bucket{restart_type="JLR",le="+Inf"} 1',
        'restart_latency_seconds_sum{restart_type="JLR"} 1',
        'restart_latency_seconds_count{restart_type="JLR"} 1',
        "",
      ].join("\n"),
    );
  });

  it("renders a label-less histogram with zeros, drops a trailing +Inf bound and refuses NaN", () => {
    const registry = createRegistry();
    const h = registry.histogram({ name: "h_seconds", help: "H.", buckets: [1, Number.POSITIVE_INFINITY] });
    expect(registry.render()).toBe(
      [
        "# HELP h_seconds H.",
        "# TYPE h_seconds histogram",
        'h_seconds_bucket{le="1"} 0',
        'h_seconds_bucket{le="+Inf"} 0',
        "h_seconds_sum 0",
        "h_seconds_count 0",
        "",
      ].join("\n"),
    );
    expect(() => h.observe({}, Number.NaN)).toThrow('metric "h_seconds": expected a number, got NaN');
  });

  it("validates buckets", () => {
    const registry = createRegistry();
    expect(() => registry.histogram({ name: "a", help: "A.", buckets: [1, 1] })).toThrow(
      'histogram "a": buckets must be strictly increasing (1 then 1)',
    );
    expect(() => registry.histogram({ name: "b", help: "B.", buckets: [Number.NaN] })).toThrow(
      'histogram "b": bucket bound NaN is not a finite number',
    );
    expect(() => registry.histogram({ name: "c", help: "C.", labelNames: ["le"], buckets: [1] })).toThrow(
      'invalid label name "le": reserved by the histogram type',
    );
  });
});
