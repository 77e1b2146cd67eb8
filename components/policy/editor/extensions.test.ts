import { CompletionContext } from "@codemirror/autocomplete";
import { EditorState } from "@codemirror/state";
import { describe, expect, it } from "vitest";
import type { PolicyProblems } from "./diagnostics";
import { lintPolicy, type PolicyLanguage, policyCompletionSource } from "./extensions";
import { buildFieldCatalog } from "./field-catalog";
import { runPolicyJsonSchema } from "./run-policy-json-schema";

const catalog = buildFieldCatalog(runPolicyJsonSchema(), {});

/** A language whose check reports `problems` for any text (the check itself is tested with the domain). */
function languageReporting(problems: PolicyProblems): PolicyLanguage {
  return { check: () => problems, fields: () => catalog };
}

const quiet = languageReporting({ errors: [], warnings: [] });

function complete(source: string, explicit = false) {
  const pos = source.indexOf("|");
  const state = EditorState.create({ doc: source.replace("|", "") });
  return policyCompletionSource(quiet)(new CompletionContext(state, pos, explicit));
}

describe("policyCompletionSource", () => {
  it("completes a key being typed and an enum value", () => {
    expect(complete("restartPolicy:\n  max|")?.options.map((o) => o.label)).toContain("maxFullJobRestarts");
    const values = complete("cleanPodPolicy: |");
    expect(values?.options.map((o) => o.label)).toEqual(["All", "OnlyComplete", "None"]);
    expect(values?.from).toBe("cleanPodPolicy: ".length);
  });

  it("offers keys on an empty line only when asked", () => {
    expect(complete("restartPolicy:\n  |")).toBeNull();
    expect(complete("restartPolicy:\n  |", true)?.options[0]).toMatchObject({
      label: "evalPeriodSeconds",
      detail: "integer, required",
    });
  });
});

describe("lintPolicy", () => {
  const text = "restartPolicy:\n  evalPeriodSeconds: 0\n";
  const state = EditorState.create({ doc: text });
  const error = { path: "restartPolicy.evalPeriodSeconds", line: 2, column: 22, message: "expected ≥ 1" };

  it("marks the check's errors and warnings", () => {
    const diagnostics = lintPolicy(state, languageReporting({ errors: [error], warnings: [] }), null);
    expect(diagnostics).toHaveLength(1);
    expect(text.slice(diagnostics[0]?.from, diagnostics[0]?.to)).toBe("0");
  });

  it("adds the server's problems for this very text, once, and drops them once the text changes", () => {
    const server = { yaml: text, problems: [error, { path: "", line: 1, column: 1, message: "lookahead" }] };
    const both = lintPolicy(state, languageReporting({ errors: [error], warnings: [] }), server);
    expect(both.map((d) => d.message)).toEqual([
      "restartPolicy.evalPeriodSeconds: expected ≥ 1",
      "lookahead",
    ]);
    const edited = EditorState.create({ doc: `${text}# edited\n` });
    expect(lintPolicy(edited, quiet, server)).toEqual([]);
  });
});
