/**
 * The policy editor's CodeMirror extensions: lint as the user types (200 ms after the last key) with the
 * problems `check` finds plus the server's refusal of the very text it refused, completion of runPolicy keys
 * and values, and hover docs for every field. The domain (parsePolicyYaml, FIELD_DOCS) comes in through
 * `PolicyLanguage` (policy-language.ts), so this wiring is tested on its own.
 */
import {
  autocompletion,
  type Completion,
  type CompletionContext,
  type CompletionResult,
} from "@codemirror/autocomplete";
import { type Diagnostic, linter } from "@codemirror/lint";
import type { EditorState, Extension } from "@codemirror/state";
import { hoverTooltip } from "@codemirror/view";
import { completionsAt, type FieldOption, fieldAt } from "./completion";
import { type PolicyProblem, type PolicyProblems, policyDiagnostics } from "./diagnostics";
import type { PolicyField } from "./field-catalog";
import { fieldDocNode } from "./field-doc-view";

/** Problems the server reported for one text: shown while the editor holds exactly that text. */
export type ServerProblems = { yaml: string; problems: readonly PolicyProblem[] };

/** What the editor knows of policies: how to check a text, and the fields with their docs. */
export type PolicyLanguage = {
  check: (text: string) => PolicyProblems;
  fields: () => ReadonlyMap<string, PolicyField>;
};

const LINT_DELAY_MS = 200;

function sameProblem(a: PolicyProblem, b: PolicyProblem): boolean {
  return a.line === b.line && a.column === b.column && a.message === b.message;
}

/** The diagnostics for the editor's text: the check's, and the server's for this very text (not repeated). */
export function lintPolicy(
  state: EditorState,
  language: PolicyLanguage,
  server: ServerProblems | null,
): Diagnostic[] {
  const text = state.doc.toString();
  const found = language.check(text);
  const errors = [...found.errors];
  if (server !== null && server.yaml === text) {
    errors.push(...server.problems.filter((problem) => !errors.some((known) => sameProblem(known, problem))));
  }
  return policyDiagnostics(state.doc, { errors, warnings: found.warnings });
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

/** Keys of the mapping at the cursor (on an empty line only when asked, or once a letter is typed), values. */
export function policyCompletionSource(language: PolicyLanguage) {
  return (context: CompletionContext): CompletionResult | null => {
    const found = completionsAt(context.state.doc.toString(), context.pos, language.fields());
    if (found === null) return null;
    const emptyKey = found.from === context.pos && found.options[0]?.type === "property";
    if (emptyKey && !context.explicit) return null;
    return { from: found.from, options: found.options.map(toCompletion), validFor: /^[\w.-]*$/ };
  };
}

/** Lint, completion and hover; `server` is read on each lint pass (call forceLinting after changing it). */
export function policyLanguageSupport(
  language: PolicyLanguage,
  server: () => ServerProblems | null,
): Extension[] {
  return [
    linter((view) => lintPolicy(view.state, language, server()), { delay: LINT_DELAY_MS }),
    autocompletion({ override: [policyCompletionSource(language)], icons: false }),
    hoverTooltip((view, pos) => {
      const found = fieldAt(view.state.doc.toString(), pos, language.fields());
      if (found === null) return null;
      return {
        pos: found.from,
        end: found.to,
        above: true,
        create: () => ({ dom: fieldDocNode(found.field) }),
      };
    }),
  ];
}
