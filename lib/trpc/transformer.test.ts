import superjson, { type SuperJSONResult } from "superjson";
import { describe, expect, it } from "vitest";
import { isPlainJson, wireTransformer } from "./transformer";

/** What a rank of a job page looks like on the wire (server/domain/jobs/view-model.ts RankView). */
const rank = (n: number, loss: number) => ({
  rank: n,
  localRank: n % 8,
  pod: `bench-k8s-workers-${Math.floor(n / 8)}`,
  node: `kwok-node-${Math.floor(n / 8)}`,
  health: "healthy",
  state: "running",
  pid: null,
  step: 51,
  loss,
  throughput: 1207,
  lastLine: `step=51 loss=${loss} throughput=1207 samples/s rank=${n}`,
  lastLineAt: 1_796_690_563_000,
  restarts: 0,
  ruleStates: { JobHang: "HEALTHY", LossNaN: "HEALTHY" },
  straggler: false,
  suspect: false,
  lastProgressAt: null,
  progressIntervalMs: 1000,
});
const page = (ranks: number, loss = (n: number) => 2.2 + n / 1e4) => ({
  kind: "snapshot",
  value: {
    name: "bench-k8s",
    topology: { ranks: Array.from({ length: ranks }, (_, n) => rank(n, loss(n))) },
  },
});

const samples: Array<[string, unknown]> = [
  ["plain JSON", { a: [1, "two", true, null, { b: -0.5 }], c: {} }],
  ["a job page", page(16)],
  ["a NaN loss deep in a job page", page(16, (n) => (n === 11 ? Number.NaN : 2.2))],
  ["Infinity", { throughput: Number.POSITIVE_INFINITY }],
  ["an undefined field", { suspect: undefined, rank: 1 }],
  ["an undefined input (a query without input)", undefined],
  ["a Date", { at: new Date(1_796_690_563_000) }],
  ["a Map and a Set", { m: new Map([["a", 1]]), s: new Set([1, 2]) }],
  ["a bigint", { n: 10n }],
  // biome-ignore lint/suspicious/noSparseArray: the hole is the case under test.
  ["a sparse array", [1, , 3]],
  ["an object without prototype", Object.assign(Object.create(null) as object, { a: 1 })],
];

describe("wireTransformer", () => {
  it.each(samples)("writes what superjson writes, and reads it back as superjson does: %s", (_, value) => {
    const text = JSON.stringify(wireTransformer.serialize(value));
    expect(text).toBe(JSON.stringify(superjson.serialize(value)));
    expect(wireTransformer.deserialize(JSON.parse(text))).toEqual(superjson.deserialize(JSON.parse(text)));
  });

  it("takes superjson's path, and its refusal, for a key superjson refuses", () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}}') as unknown;
    expect(isPlainJson(hostile)).toBe(false);
    expect(() => wireTransformer.serialize(hostile)).toThrow(/prototype pollution/);
  });

  it("tells plain JSON from what JSON would change", () => {
    expect(isPlainJson(page(4))).toBe(true);
    expect(isPlainJson(page(4, () => Number.NaN))).toBe(false);
    expect(isPlainJson({ at: new Date() })).toBe(false);
    expect(isPlainJson({ f: () => 1 })).toBe(false);
    expect(isPlainJson([undefined])).toBe(false);
  });

  it("reads a payload in place: the parsed page is the value, not a copy of it", () => {
    const wire = JSON.parse(JSON.stringify(wireTransformer.serialize(page(4)))) as SuperJSONResult;
    expect(wireTransformer.deserialize(wire)).toBe(wire.json);
  });

  it("serialises a 16,384-rank page without superjson's walk (printed: both, ms)", () => {
    const big = page(16_384);
    const time = (serialize: (value: unknown) => unknown) => {
      const began = performance.now();
      const out = JSON.stringify(serialize(big));
      return { ms: performance.now() - began, out };
    };
    const ours = time(wireTransformer.serialize);
    const theirs = time((value) => superjson.serialize(value));
    console.log(
      `16,384-rank page, serialise + stringify: superjson ${theirs.ms.toFixed(0)} ms, wireTransformer ${ours.ms.toFixed(0)} ms (${(ours.out.length / 1e6).toFixed(1)} MB)`,
    );
    expect(ours.out).toBe(theirs.out);
  });
});
