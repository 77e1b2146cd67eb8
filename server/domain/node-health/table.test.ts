import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { DEFAULT_NODE_SIGNALS } from "@/server/domain/node-health/default-signals";
import {
  checkNodeSignalTable,
  checkNodeSignalText,
  cordonMovesPods,
  MAX_NODE_SIGNAL_ROWS,
  overlayNodeSignals,
  withCordonAction,
} from "./table";

const without = (id: string) => DEFAULT_NODE_SIGNALS.filter((rule) => rule.id !== id);
const messageOf = (check: ReturnType<typeof checkNodeSignalTable>) => (check.ok ? "ok" : check.message);

describe("checking a node-signal table", () => {
  it("accepts the shipped table, as YAML or JSON, whatever the order of a row's keys", () => {
    expect(checkNodeSignalText(stringify(DEFAULT_NODE_SIGNALS))).toEqual({
      ok: true,
      table: DEFAULT_NODE_SIGNALS,
    });
    expect(checkNodeSignalText(JSON.stringify(DEFAULT_NODE_SIGNALS)).ok).toBe(true);
    const reordered = DEFAULT_NODE_SIGNALS.map((rule) => Object.fromEntries(Object.entries(rule).reverse()));
    expect(checkNodeSignalTable(reordered).ok).toBe(true);
  });

  it("names the row by index and id, and the field", () => {
    const table = DEFAULT_NODE_SIGNALS.map((rule) =>
      rule.id === "npd-xfs-shutdown" ? { ...rule, read: { ...rule.read, status: [] } } : rule,
    );
    const index = DEFAULT_NODE_SIGNALS.findIndex((rule) => rule.id === "npd-xfs-shutdown");
    expect(messageOf(checkNodeSignalTable(table))).toBe(
      `rules[${index}] (npd-xfs-shutdown).read.status: expected at least one status`,
    );
    expect(messageOf(checkNodeSignalTable([...DEFAULT_NODE_SIGNALS, { source: "npd" }]))).toMatch(
      new RegExp(`^rules\\[${DEFAULT_NODE_SIGNALS.length}\\]\\.id: `),
    );
    expect(messageOf(checkNodeSignalTable({ rows: [] }))).toMatch(/^rules: /);
    expect(messageOf(checkNodeSignalTable([...DEFAULT_NODE_SIGNALS, DEFAULT_NODE_SIGNALS[1]]))).toBe(
      "rules: rule ids must be unique",
    );
  });

  it("keeps HyperPod's label as it is: its row unchanged, present, and read by no other row", () => {
    expect(messageOf(checkNodeSignalTable(without("hyperpod-node-health")))).toMatch(
      /^rules: the hyperpod-node-health row is missing/,
    );
    const other = {
      id: "my-hyperpod",
      source: "hyperpod",
      read: {
        kind: "label",
        key: "sagemaker.amazonaws.com/node-health-status",
        valuePrefix: "Unschedulable",
      },
      meaning: "degraded",
      action: "avoid",
    };
    expect(messageOf(checkNodeSignalTable([...DEFAULT_NODE_SIGNALS, other]))).toBe(
      `rules[${DEFAULT_NODE_SIGNALS.length}] (my-hyperpod).read.key: sagemaker.amazonaws.com/node-health-status is read by the hyperpod-node-health row only`,
    );
  });

  it("bounds rows and text, and names a YAML syntax error's line", () => {
    const many = Array.from({ length: MAX_NODE_SIGNAL_ROWS + 1 }, () => DEFAULT_NODE_SIGNALS[0]);
    expect(messageOf(checkNodeSignalTable(many))).toBe(
      `rules: at most ${MAX_NODE_SIGNAL_ROWS} rows, got ${MAX_NODE_SIGNAL_ROWS + 1}`,
    );
    expect(messageOf(checkNodeSignalText("- id: a\n- : : [\n"))).toMatch(/^rules: not valid YAML at line 2/);
  });
});

describe("the cordon toggle", () => {
  it("flips every cordon row between avoid and replace-now, and nothing else", () => {
    expect(cordonMovesPods(DEFAULT_NODE_SIGNALS)).toBe(false);
    const on = withCordonAction(DEFAULT_NODE_SIGNALS, true);
    expect(cordonMovesPods(on)).toBe(true);
    expect(on.find((rule) => rule.id === "kubernetes-cordon")).toMatchObject({
      meaning: "maintenance",
      action: "replace-now",
    });
    expect(without("kubernetes-cordon")).toEqual(on.filter((rule) => rule.id !== "kubernetes-cordon"));
    expect(withCordonAction(on, false)).toEqual(DEFAULT_NODE_SIGNALS);
    expect(checkNodeSignalTable(on).ok).toBe(true);
  });

  it("adds the shipped cordon row when the table has none", () => {
    const on = withCordonAction(without("kubernetes-cordon"), true);
    expect(on.at(-1)).toMatchObject({ id: "kubernetes-cordon", action: "replace-now" });
    expect(cordonMovesPods(without("kubernetes-cordon"))).toBe(false);
  });
});

describe("a ConfigMap's rows over the stored table", () => {
  it("replaces the row of the same id in place and adds new ids at the end", () => {
    const cordon = {
      ...DEFAULT_NODE_SIGNALS.find((rule) => rule.id === "kubernetes-cordon"),
      action: "replace-now",
    };
    const added = {
      id: "site-gpu-burn",
      source: "npd",
      read: { kind: "condition", type: "GpuBurn", status: ["True"] },
      meaning: "unusable",
      action: "replace-now",
    };
    const merged = overlayNodeSignals(DEFAULT_NODE_SIGNALS, [cordon, added]);
    expect(merged.ok).toBe(true);
    if (!merged.ok) return;
    expect(merged.table).toHaveLength(DEFAULT_NODE_SIGNALS.length + 1);
    expect(merged.table.map((rule) => rule.id).slice(0, -1)).toEqual(
      DEFAULT_NODE_SIGNALS.map((rule) => rule.id),
    );
    expect(cordonMovesPods(merged.table)).toBe(true);
    expect(merged.table.at(-1)?.id).toBe("site-gpu-burn");
  });

  it("refuses rows that are not a list, a bad row naming it, and a change of HyperPod's row", () => {
    expect(messageOf(overlayNodeSignals(DEFAULT_NODE_SIGNALS, { id: "x" }))).toMatch(
      /^rules: expected a list of rows/,
    );
    expect(
      messageOf(overlayNodeSignals(DEFAULT_NODE_SIGNALS, [{ id: "kubernetes-cordon", action: "avoid" }])),
    ).toMatch(/^rules\[\d+\] \(kubernetes-cordon\)\.source: /);
    const hyperpod = { ...DEFAULT_NODE_SIGNALS[0], action: "avoid" };
    expect(messageOf(overlayNodeSignals(DEFAULT_NODE_SIGNALS, [hyperpod]))).toMatch(
      /label keeps its meaning/,
    );
  });
});
