import { EditorState } from "@codemirror/state";
import { describe, expect, it } from "vitest";
import { completionsAt } from "./completion";
import { lintPolicy } from "./extensions";
import { runPolicyLanguage } from "./policy-language";

describe("runPolicyLanguage (the domain's parsePolicyYaml and FIELD_DOCS in the editor)", () => {
  it("marks a nested mistake at its line and column, on the value written there", () => {
    const text =
      "restartPolicy:\n  evalPeriodSeconds: soon\nlogMonitoringConfiguration:\n  - name: hang\n    logPatern: x\n";
    const diagnostics = lintPolicy(EditorState.create({ doc: text }), runPolicyLanguage, null);
    const spans = diagnostics.map((d) => ({ severity: d.severity, text: text.slice(d.from, d.to) }));
    expect(spans).toContainEqual({ severity: "error", text: "soon" });
  });

  it("finds no error in a valid policy", () => {
    const text = "restartPolicy:\n  evalPeriodSeconds: 60\n";
    const diagnostics = lintPolicy(EditorState.create({ doc: text }), runPolicyLanguage, null);
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  });

  it("documents every runPolicy field the editor completes", () => {
    const undocumented = [...runPolicyLanguage.fields().values()].filter((field) => !field.doc?.summary);
    expect(undocumented.map((field) => field.path)).toEqual([]);
  });

  it("completes with the field's docs", () => {
    const found = completionsAt("clean", 5, runPolicyLanguage.fields());
    expect(found?.options[0]?.field.doc?.summary.length).toBeGreaterThan(0);
  });
});
