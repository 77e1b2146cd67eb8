"use client";

/**
 * The policy document editor: CodeMirror 6 with YAML highlighting in the console's colours, lint markers at
 * the line and column the domain's parsePolicyYaml reports (run here as the user types), completion and
 * hover docs for every runPolicy field, and the server's refusal marked on the text it refused. Used by the
 * policy library (/policies/[id]) and the job's policy page.
 */
import { yaml } from "@codemirror/lang-yaml";
import { forceLinting, lintGutter } from "@codemirror/lint";
import { EditorView } from "@codemirror/view";
import CodeMirror from "@uiw/react-codemirror";
import { useEffect, useMemo, useRef } from "react";
import { policyEditorTheme } from "./editor-theme";
import { policyLanguageSupport, type ServerProblems } from "./extensions";
import { runPolicyLanguage } from "./policy-language";

export type PolicyYamlEditorProps = {
  value: string;
  onChange?: (value: string) => void;
  readOnly?: boolean;
  /** The editor's accessible name. */
  label: string;
  /** CSS height, e.g. "320px"; the editor grows with its content past it. */
  minHeight?: string;
  /** What the server refused in a text (a save's INVALID issues), marked while the editor holds that text. */
  serverProblems?: ServerProblems | null;
};

export function PolicyYamlEditor({
  value,
  onChange,
  readOnly = false,
  label,
  minHeight = "320px",
  serverProblems = null,
}: PolicyYamlEditorProps) {
  const server = useRef(serverProblems);
  const view = useRef<EditorView | null>(null);
  useEffect(() => {
    server.current = serverProblems;
    if (view.current !== null) forceLinting(view.current);
  }, [serverProblems]);
  const extensions = useMemo(
    () => [
      yaml(),
      lintGutter(),
      policyLanguageSupport(runPolicyLanguage, () => server.current),
      policyEditorTheme,
      EditorView.contentAttributes.of({ "aria-label": label, "aria-readonly": readOnly ? "true" : "false" }),
    ],
    [label, readOnly],
  );
  return (
    <CodeMirror
      value={value}
      onChange={onChange}
      readOnly={readOnly}
      editable={!readOnly}
      minHeight={minHeight}
      theme="none"
      extensions={extensions}
      onCreateEditor={(created) => {
        view.current = created;
      }}
      basicSetup={{ foldGutter: false, highlightActiveLine: !readOnly, autocompletion: false }}
    />
  );
}
