import styles from "./form.module.css";

export type Choice = { value: string; label: string };

/**
 * One labelled field of the policy form, named as in the YAML (`evalPeriodSeconds`): a text input, or a
 * select when `choices` are given. Its message (the schema's, from parsePolicyYaml) is tied to it with
 * aria-invalid and aria-describedby.
 */
export function FormField(props: {
  id: string;
  name: string;
  value: string;
  onChange: (value: string) => void;
  error?: string | undefined;
  choices?: readonly Choice[];
  numeric?: boolean;
  disabled: boolean;
}) {
  const messageId = `${props.id}-message`;
  const common = {
    id: props.id,
    disabled: props.disabled,
    "aria-invalid": props.error ? true : undefined,
    "aria-describedby": props.error ? messageId : undefined,
  };
  return (
    <div className={styles.field}>
      <label htmlFor={props.id}>
        <code>{props.name}</code>
      </label>
      {props.choices ? (
        <select {...common} value={props.value} onChange={(event) => props.onChange(event.target.value)}>
          {props.choices.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
      ) : (
        <input
          {...common}
          type="text"
          inputMode={props.numeric ? "decimal" : "text"}
          spellCheck={false}
          value={props.value}
          onChange={(event) => props.onChange(event.target.value)}
        />
      )}
      {props.error ? (
        <span id={messageId} className={styles.fieldError}>
          {props.error}
        </span>
      ) : null}
    </div>
  );
}
