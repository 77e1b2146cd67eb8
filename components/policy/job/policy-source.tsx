"use client";

import styles from "./policy.module.css";

/**
 * The policy's YAML source. The shared CodeMirror editor (components/policy/editor) replaces this
 * textarea once it is in; the page depends only on this component's props.
 */
export function PolicySource(props: { value: string; onChange: (value: string) => void; readOnly: boolean }) {
  return (
    <textarea
      className={styles.textarea}
      aria-label="Run policy YAML"
      spellCheck={false}
      value={props.value}
      readOnly={props.readOnly}
      onChange={(event) => props.onChange(event.target.value)}
    />
  );
}
