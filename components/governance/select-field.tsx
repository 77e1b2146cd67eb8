import styles from "./governance.module.css";

/** A labelled select with its message beside it (see TextField). */
export function SelectField<Value extends string>(props: {
  id: string;
  label: string;
  value: Value;
  options: ReadonlyArray<{ value: Value; label: string }>;
  onChange: (value: Value) => void;
  error?: string | undefined;
  hint?: string;
}) {
  const messageId = `${props.id}-message`;
  const message = props.error ?? props.hint;
  return (
    <div className={styles.field}>
      <label htmlFor={props.id}>{props.label}</label>
      <select
        id={props.id}
        value={props.value}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={message ? messageId : undefined}
        onChange={(event) => {
          const next = props.options.find((option) => option.value === event.target.value);
          if (next) props.onChange(next.value);
        }}
      >
        {props.options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      {message ? (
        <span id={messageId} className={props.error ? styles.fieldError : styles.fieldHint}>
          {message}
        </span>
      ) : null}
    </div>
  );
}
