import type { FieldErrors } from "../form-errors";
import styles from "../governance.module.css";
import { emptyResource, type ResourceDraft, unitLabel } from "./quota-model";

type Key = "instanceType" | "resource" | "guaranteed" | "absoluteBorrowLimit";

function Cell(props: {
  row: ResourceDraft;
  index: number;
  field: Key;
  label: string;
  errors: FieldErrors;
  onChange: (value: string) => void;
}) {
  const path = `resources.${props.index}.${props.field}`;
  const error = props.errors[path];
  const id = `quota-${props.row.id}-${props.field}`;
  return (
    <td>
      <input
        id={id}
        type="text"
        aria-label={props.label}
        value={props.row[props.field]}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-message` : undefined}
        onChange={(event) => props.onChange(event.target.value)}
      />
      {error ? (
        <span id={`${id}-message`} className={styles.fieldError}>
          {error}
        </span>
      ) : null}
    </td>
  );
}

/**
 * Guaranteed amounts per instance type and resource, with an optional absolute borrow cap each (HyperPod
 * ComputeQuotaResources and AbsoluteBorrowLimits). Each input's accessible name says which row it is.
 */
export function QuotaResources(props: {
  rows: ResourceDraft[];
  errors: FieldErrors;
  onChange: (rows: ResourceDraft[]) => void;
}) {
  const { rows, errors, onChange } = props;
  const update = (index: number, key: Key, value: string) =>
    onChange(rows.map((row, at) => (at === index ? { ...row, [key]: value } : row)));
  return (
    <>
      <table
        className={`data-table ${styles.resources}`}
        aria-label="Quota resources"
        aria-describedby={errors.resources ? "quota-resources-message" : undefined}
      >
        <thead>
          <tr>
            <th scope="col">Instance type</th>
            <th scope="col">Resource</th>
            <th scope="col">Guaranteed</th>
            <th scope="col">Absolute borrow limit</th>
            <th scope="col">
              <span className="sr-only">Remove</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => {
            const name = `${row.resource || "resource"} on ${row.instanceType || "instance type"}`;
            const cell = (field: Key, label: string) => (
              <Cell
                row={row}
                index={index}
                field={field}
                label={label}
                errors={errors}
                onChange={(value) => update(index, field, value)}
              />
            );
            return (
              <tr key={row.id}>
                {cell("instanceType", `Instance type, row ${index + 1}`)}
                {cell("resource", `Resource, row ${index + 1}`)}
                {cell("guaranteed", `Guaranteed ${name} (${unitLabel(row.resource)})`)}
                {cell("absoluteBorrowLimit", `Absolute borrow limit ${name} (${unitLabel(row.resource)})`)}
                <td>
                  <button
                    type="button"
                    className="button button-secondary"
                    onClick={() => onChange(rows.filter((_, at) => at !== index))}
                  >
                    Remove<span className="sr-only"> {name}</span>
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {errors.resources ? (
        <p id="quota-resources-message" className={styles.fieldError}>
          {errors.resources}
        </p>
      ) : null}
      <div className={styles.toolbar}>
        <button
          type="button"
          className="button button-secondary"
          onClick={() => onChange([...rows, emptyResource()])}
        >
          Add resource
        </button>
        <span className="muted">Memory in GiB; an empty borrow limit means the percent applies.</span>
      </div>
    </>
  );
}
