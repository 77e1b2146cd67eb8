import type { FieldErrors } from "../form-errors";
import styles from "../governance.module.css";
import { emptyPriorityClass, type PriorityClassDraft } from "./scheduler-model";

function Input(props: {
  id: string;
  label: string;
  value: string;
  error: string | undefined;
  onChange: (value: string) => void;
}) {
  return (
    <>
      <input
        id={props.id}
        type="text"
        aria-label={props.label}
        value={props.value}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={props.error ? `${props.id}-message` : undefined}
        onChange={(event) => props.onChange(event.target.value)}
      />
      {props.error ? (
        <span id={`${props.id}-message`} className={styles.fieldError}>
          {props.error}
        </span>
      ) : null}
    </>
  );
}

/** Priority classes (name, weight 0–100; higher runs first), at most 10, with how many jobs use each. */
export function PriorityClassesFields(props: {
  rows: PriorityClassDraft[];
  errors: FieldErrors;
  onChange: (rows: PriorityClassDraft[]) => void;
}) {
  const { rows, errors, onChange } = props;
  const update = (index: number, patch: Partial<PriorityClassDraft>) =>
    onChange(rows.map((row, at) => (at === index ? { ...row, ...patch } : row)));
  return (
    <>
      <table
        className={`data-table ${styles.resources}`}
        aria-label="Priority classes"
        aria-describedby={errors.priorityClasses ? "priority-classes-message" : undefined}
      >
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Weight</th>
            <th scope="col" className="num">
              Jobs using it
            </th>
            <th scope="col">
              <span className="sr-only">Remove</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => (
            <tr key={row.id}>
              <td>
                <Input
                  id={`${row.id}-name`}
                  label={`Name of priority class ${index + 1}`}
                  value={row.name}
                  error={errors[`priorityClasses.${index}.name`]}
                  onChange={(name) => update(index, { name })}
                />
              </td>
              <td>
                <Input
                  id={`${row.id}-weight`}
                  label={`Weight of ${row.name || `priority class ${index + 1}`}`}
                  value={row.weight}
                  error={errors[`priorityClasses.${index}.weight`]}
                  onChange={(weight) => update(index, { weight })}
                />
              </td>
              <td className="num">{row.jobs}</td>
              <td>
                <button
                  type="button"
                  className="button button-secondary"
                  onClick={() => onChange(rows.filter((_, at) => at !== index))}
                >
                  Remove<span className="sr-only"> {row.name || `priority class ${index + 1}`}</span>
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {errors.priorityClasses ? (
        <p id="priority-classes-message" className={styles.fieldError}>
          {errors.priorityClasses}
        </p>
      ) : null}
      <div className={styles.toolbar}>
        <button
          type="button"
          className="button button-secondary"
          disabled={rows.length >= 10}
          onClick={() => onChange([...rows, emptyPriorityClass()])}
        >
          Add priority class
        </button>
      </div>
    </>
  );
}
