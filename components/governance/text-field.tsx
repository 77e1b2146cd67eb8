import type { ReactNode } from "react";
import styles from "./governance.module.css";

/**
 * A labelled input with its message beside it: `aria-invalid` and `aria-describedby` point at the message,
 * so a screen reader reads what is wrong with the field it is on.
 */
export function TextField(props: {
  id: string;
  label: ReactNode;
  value: string;
  onChange: (value: string) => void;
  error?: string | undefined;
  hint?: string;
  inputMode?: "numeric" | "decimal" | "text";
  disabled?: boolean;
}) {
  const messageId = `${props.id}-message`;
  const message = props.error ?? props.hint;
  return (
    <div className={styles.field}>
      <label htmlFor={props.id}>{props.label}</label>
      <input
        id={props.id}
        type="text"
        inputMode={props.inputMode ?? "text"}
        value={props.value}
        disabled={props.disabled}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={message ? messageId : undefined}
        onChange={(event) => props.onChange(event.target.value)}
      />
      {message ? (
        <span id={messageId} className={props.error ? styles.fieldError : styles.fieldHint}>
          {message}
        </span>
      ) : null}
    </div>
  );
}
