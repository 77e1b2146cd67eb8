import { Text } from "@codemirror/state";
import { describe, expect, it } from "vitest";
import { policyDiagnostics, problemsFromIssues } from "./diagnostics";

const source = "restartPolicy:\n  evalPeriodSeconds: -5\n  maxFullJobRestart: 2\n";
const doc = Text.of(source.split("\n"));

describe("policyDiagnostics", () => {
  it("underlines the token at the reported line and column", () => {
    const [diagnostic] = policyDiagnostics(doc, {
      errors: [{ path: "restartPolicy.evalPeriodSeconds", line: 2, column: 22, message: "expected ≥ 1" }],
      warnings: [],
    });
    expect(diagnostic).toMatchObject({
      severity: "error",
      message: "restartPolicy.evalPeriodSeconds: expected ≥ 1",
    });
    expect(source.slice(diagnostic?.from, diagnostic?.to)).toBe("-5");
  });

  it("marks an unknown key as written, and warnings as warnings", () => {
    const diagnostics = policyDiagnostics(doc, {
      errors: [{ path: "restartPolicy.maxFullJobRestart", line: 3, column: 3, message: "unknown field" }],
      warnings: [{ path: "", line: 1, column: 1, message: "no log rules" }],
    });
    expect(source.slice(diagnostics[0]?.from, diagnostics[0]?.to)).toBe("maxFullJobRestart:");
    expect(diagnostics[1]).toMatchObject({ severity: "warning", message: "no log rules", from: 0 });
  });

  it("keeps positions inside the document when the line or column is past its end", () => {
    const [past] = policyDiagnostics(doc, {
      errors: [{ path: "", line: 40, column: 90, message: "x" }],
      warnings: [],
    });
    expect(past?.from).toBeLessThanOrEqual(doc.length);
    expect(past?.to).toBeLessThanOrEqual(doc.length);
    const [nowhere] = policyDiagnostics(doc, {
      errors: [{ path: "", message: "not a mapping" }],
      warnings: [],
    });
    expect(nowhere).toMatchObject({ from: 0, to: "restartPolicy:".length });
  });
});

describe("problemsFromIssues", () => {
  it("reads the line and column the server put in front of each message", () => {
    expect(
      problemsFromIssues([
        { path: "yaml.restartPolicy.evalPeriodSeconds", message: "line 2, column 22: expected ≥ 1" },
        { path: "yaml", message: "line 7: a rule name repeats" },
        { path: "message", message: "at most 500 characters" },
      ]),
    ).toEqual([
      { path: "restartPolicy.evalPeriodSeconds", line: 2, column: 22, message: "expected ≥ 1" },
      { path: "", line: 7, column: undefined, message: "a rule name repeats" },
    ]);
  });
});
