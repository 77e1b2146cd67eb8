/**
 * The policy editor's CodeMirror extensions: lint from the domain's parsePolicyYaml as the user types (200 ms
 * after the last key; plus the server's refusal of the text it refused), completion of runPolicy keys and
 * values, and hover docs for every field (FIELD_DOCS via the field catalog).
 */
import { autocompletion, type Completion, type CompletionContext } from "@codemirror/autocomplete";
import { linter } from "@codemirror/lint";
import type { Extension } from "@codemirror/state";
import { hoverTooltip } from "@codemirror/view";
import { parsePolicyYaml } from "@/server/domain/policy";
import { completionsAt, type FieldOption, fieldAt } from "./completion";
import { type PolicyProblem, type PolicyProblems, policyDiagnostics } from "./diagnostics";
import { fieldDocNode } from "./field-doc-view";
import { runPolicyFields } from "./run-policy-fields";

/** Problems the server reported for one text: shown while the editor holds exactly that text. */
export type ServerProblems = { yaml: string; problems: readonly PolicyProblem[] };

const LINT_DELAY_MS = 200;

function sameProblem(a: PolicyProblem, b: PolicyProblem): boolean {
  return a.line === b.line && a.column === b.column && a.message === b.message;
}

/** What the domain finds in the text, and what the server said about this very text (not repeated). */
export function problemsOf(text: string, server: ServerProblems | null): PolicyProblems {
  const parsed = parsePolicyYaml(text);
  const errors = parsed.ok ? [] : [...parsed.errors];
  const warnings = parsed.ok ? [...parsed.warnings] : [];
  if (server !== null && server.yaml === text) {
    errors.push(...server.problems.filter((problem) => !errors.some((known) => sameProblem(known, problem))));
  }
  return { errors, warnings };
}

function toCompletion(option: FieldOption): Completion {
  return {
    label: option.label,
    apply: option.apply,
    type: option.type,
    detail: option.detail,
    info: () => fieldDocNode(option.field),
  };
}

function completionSource(context: CompletionContext) {
  const found = completionsAt(context.state.doc.toString(), context.pos, runPolicyFields());
  if (found === null) return null;
  if (found.from === context.pos && !context.explicit && found.options[0]?.type === "property") {
    // An empty line: offer keys only when asked (Ctrl-Space) or once a letter is typed.
    return null;
  }
  return { from: found.from, options: found.options.map(toCompletion), validFor: /^[\w.-]*$/ };
}

const hover = hoverTooltip((view, pos) => {
  const found = fieldAt(view.state.doc.toString(), pos, runPolicyFields());
  if (found === null) return null;
  return { pos: found.from, end: found.to, above: true, create: () => ({ dom: fieldDocNode(found.field) }) };
});

/** Lint, completion and hover; `server` is read on each lint pass (call forceLinting after changing it). */
export function policyLanguageSupport(server: () => ServerProblems | null): Extension[] {
  return [
    linter((view) => policyDiagnostics(view.state.doc, problemsOf(view.state.doc.toString(), server())), {
      delay: LINT_DELAY_MS,
    }),
    autocompletion({ override: [completionSource], icons: false }),
    hover,
  ];
}
