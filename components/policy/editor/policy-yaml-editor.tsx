"use client";

/**
 * The policy document editor: CodeMirror 6 with YAML highlighting in the console's colours, lint markers
 * from the domain's parsePolicyYaml (run here as the user types) and completion and hover docs for every
 * runPolicy field. Used by the policy library (/policies) and the job's policy page.
 */
import { yaml } from "@codemirror/lang-yaml";
import { lintGutter } from "@codemirror/lint";
import { EditorView } from "@codemirror/view";
import CodeMirror from "@uiw/react-codemirror";
import { useMemo } from "react";
import { policyEditorTheme } from "./editor-theme";

export type PolicyYamlEditorProps = {
  value: string;
  onChange?: (value: string) => void;
  readOnly?: boolean;
  /** The editor's accessible name. */
  label: string;
  /** CSS height, e.g. "320px"; the editor grows with its content past it. */
  minHeight?: string;
};

export function PolicyYamlEditor({
  value,
  onChange,
  readOnly = false,
  label,
  minHeight = "320px",
}: PolicyYamlEditorProps) {
  const extensions = useMemo(
    () => [
      yaml(),
      lintGutter(),
      policyEditorTheme,
      EditorView.contentAttributes.of({ "aria-label": label, "aria-multiline": "true" }),
    ],
    [label],
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
      basicSetup={{ foldGutter: false, highlightActiveLine: !readOnly, autocompletion: true }}
    />
  );
}
