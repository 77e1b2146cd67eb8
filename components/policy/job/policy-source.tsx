"use client";

import { PolicyYamlEditor } from "@/components/policy/editor/policy-yaml-editor";

/**
 * The policy's YAML source in the shared CodeMirror editor (components/policy/editor): highlighting, lint
 * markers at the line and column, completion and hover docs; read-only for viewers.
 */
export function PolicySource(props: { value: string; onChange: (value: string) => void; readOnly: boolean }) {
  return (
    <PolicyYamlEditor
      value={props.value}
      onChange={props.onChange}
      readOnly={props.readOnly}
      label="Run policy YAML"
      minHeight="360px"
    />
  );
}
