import { describe, expect, it } from "vitest";
import { keyedList } from "./list-diff";

type Row = { id: string; status: string; gpus: number; tags?: string[] };
const rows = keyedList<Row>((row) => row.id);
const row = (id: string, status = "Running", gpus = 1): Row => ({ id, status, gpus });

describe("a keyed list's diff", () => {
  it("is null when nothing changed (rows equal by value, not by identity)", () => {
    const a = [row("a"), row("b", "Pending", 2)];
    const b = a.map((r) => ({ ...r }));
    expect(rows.diff(a, b)).toBeNull();
    expect(rows.diff([], [])).toBeNull();
  });

  it("sends only the changed row", () => {
    const a = [row("a"), row("b"), row("c")];
    const b = [row("a"), row("b", "Failed"), row("c")];
    expect(rows.diff(a, b)).toEqual({ upsert: [row("b", "Failed")], remove: [], order: null });
  });

  it("sends a new row without an order when it lands at the end", () => {
    expect(rows.diff([row("a")], [row("a"), row("b")])).toEqual({
      upsert: [row("b")],
      remove: [],
      order: null,
    });
  });

  it("sends the order when a new row lands anywhere but the end", () => {
    expect(rows.diff([row("b")], [row("a"), row("b")])).toEqual({
      upsert: [row("a")],
      remove: [],
      order: ["a", "b"],
    });
  });

  it("sends a removal by key, without an order", () => {
    expect(rows.diff([row("a"), row("b"), row("c")], [row("a"), row("c")])).toEqual({
      upsert: [],
      remove: ["b"],
      order: null,
    });
  });

  it("sends only the order when rows moved and none changed", () => {
    const a = [row("a"), row("b"), row("c")];
    const b = [row("c"), row("a"), row("b")];
    expect(rows.diff(a, b)).toEqual({ upsert: [], remove: [], order: ["c", "a", "b"] });
  });

  it("compares nested values", () => {
    const a = [{ ...row("a"), tags: ["x"] }];
    const b = [{ ...row("a"), tags: ["x", "y"] }];
    expect(rows.diff(a, b)?.upsert).toEqual(b);
  });
});

describe("applying a diff", () => {
  it("gives the next list for changes, additions, removals and reorders together", () => {
    const a = [row("a"), row("b"), row("c"), row("d")];
    const b = [row("d", "Failed"), row("e"), row("a"), row("c")];
    const patch = rows.diff(a, b);
    expect(patch).not.toBeNull();
    expect(rows.apply(a, patch ?? { upsert: [], remove: [], order: null })).toEqual(b);
  });

  it("leaves the rows it was given untouched", () => {
    const a = [row("a"), row("b")];
    const before = structuredClone(a);
    rows.apply(a, { upsert: [row("a", "Failed")], remove: ["b"], order: null });
    expect(a).toEqual(before);
  });

  it("round-trips every pair of random lists: apply(a, diff(a, b)) equals b", () => {
    // A small deterministic generator: the same lists on every run.
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const randomList = (): Row[] => {
      const ids = ["a", "b", "c", "d", "e", "f", "g"].filter(() => random() < 0.6);
      for (let i = ids.length - 1; i > 0; i -= 1) {
        const j = Math.floor(random() * (i + 1));
        [ids[i], ids[j]] = [ids[j] as string, ids[i] as string];
      }
      return ids.map((id) => row(id, random() < 0.5 ? "Running" : "Failed", Math.floor(random() * 3)));
    };
    for (let trial = 0; trial < 500; trial += 1) {
      const a = randomList();
      const b = randomList();
      const patch = rows.diff(a, b);
      expect(patch === null ? a : rows.apply(a, patch)).toEqual(b);
      // A diff carries no more than it must: only rows new or changed.
      for (const upserted of patch?.upsert ?? []) {
        expect(a.find((old) => old.id === upserted.id)).not.toEqual(upserted);
      }
    }
  });
});
