import { describe, expect, it } from "vitest";
import { createRegistry, DEFAULT_LATENCY_BUCKETS_SECONDS, PROMETHEUS_CONTENT_TYPE } from "./exposition";

describe("escaping", () => {
  it("escapes label values (backslash, quote, newline) and HELP (backslash, newline)", () => {
    const registry = createRegistry();
    const g = registry.gauge({ name: "g", help: 'Path C:\\tmp\nsecond "line"', labelNames: ["v"] });
    g.set({ v: 'a\\b"c\nd' }, 1);
    g.set({ v: "ünï 🚀 {}=," }, 2);
    expect(registry.render()).toBe(
      [
        '# HELP g Path C:\\\\tmp\\nsecond "line"',
        "# TYPE g gauge",
        'g{v="a\\\\b\\"c\\nd"} 1',
        'g{v="ünï 🚀 {}=,"} 2',
        "",
      ].join("\n"),
    );
  });
});

describe("registration and label checks", () => {
  it("validates metric names, label names and help", () => {
    const registry = createRegistry();
    const bad: [() => unknown, string][] = [
      [() => registry.gauge({ name: "1abc", help: "x" }), 'invalid metric name "1abc"'],
      [() => registry.gauge({ name: "a-b", help: "x" }), 'invalid metric name "a-b"'],
      [() => registry.counter({ name: "jobs", help: "x" }), 'counter names must end in "_total"'],
      [() => registry.gauge({ name: "jobs_total", help: "x" }), 'only counter names may end in "_total"'],
      [
        () => registry.gauge({ name: "g", help: "x", labelNames: ["__x"] }),
        'names starting with "__" are reserved',
      ],
      [() => registry.gauge({ name: "g", help: "x", labelNames: ["a:b"] }), 'invalid label name "a:b"'],
      [() => registry.gauge({ name: "g", help: "x", labelNames: ["a", "a"] }), 'label name "a" is repeated'],
      [() => registry.gauge({ name: "g", help: " " }), 'metric "g": help text must not be empty'],
    ];
    for (const [register, message] of bad) expect(register).toThrow(message);
    expect(() => registry.gauge({ name: "ns:sub_metric", help: "colons are valid" })).not.toThrow();
  });

  it("throws on duplicates and on names that clash with histogram series", () => {
    const registry = createRegistry();
    registry.counter({ name: "a_total", help: "A." });
    expect(() => registry.counter({ name: "a_total", help: "A." })).toThrow(
      'metric "a_total" is already registered',
    );
    registry.histogram({ name: "h", help: "H.", buckets: [1] });
    expect(() => registry.gauge({ name: "h_count", help: "C." })).toThrow(
      'clashes with series "h_count" of metric "h"',
    );
    registry.gauge({ name: "x_sum", help: "S." });
    expect(() => registry.histogram({ name: "x", help: "X.", buckets: [1] })).toThrow(
      'clashes with series "x_sum" of metric "x_sum"',
    );
  });

  it("throws a clear error on a wrong label set", () => {
    const registry = createRegistry();
    const c = registry.counter({ name: "c_total", help: "C.", labelNames: ["namespace", "job_name"] });
    expect(() => c.inc({ namespace: "a" })).toThrow(
      'metric "c_total": expected {namespace, job_name} with string values, got {namespace}',
    );
    expect(() => c.inc({ namespace: "a", job_name: "b", extra: "c" })).toThrow(
      "got {namespace, job_name, extra}",
    );
    expect(() => c.inc()).toThrow("got no labels");
    const plain = registry.gauge({ name: "plain", help: "P." });
    expect(() => plain.set({ namespace: "a" }, 1)).toThrow('metric "plain": expected no labels');
    expect(registry.render()).not.toContain("c_total{");
  });
});

describe("constants and ordering", () => {
  it("exports the content type and default buckets", () => {
    expect(PROMETHEUS_CONTENT_TYPE).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(DEFAULT_LATENCY_BUCKETS_SECONDS).toEqual([
      0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300,
    ]);
  });

  it("renders families in registration order with HELP and TYPE once each; empty registry is empty", () => {
    const registry = createRegistry();
    expect(registry.render()).toBe("");
    registry.gauge({ name: "z", help: "Z." }).set({}, 1);
    registry.counter({ name: "a_total", help: "A.", labelNames: ["k"] }).inc({ k: "1" });
    const text = registry.render();
    expect(text).toBe(
      '# HELP z Z.\n# TYPE z gauge\nz 1\n# HELP a_total A.\n# TYPE a_total counter\na_total{k="1"} 1\n',
    );
    expect(text.match(/# TYPE/g)).toHaveLength(2);
  });
});
