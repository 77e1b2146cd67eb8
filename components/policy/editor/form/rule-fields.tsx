import { formKey } from "./field-errors";
import styles from "./form.module.css";
import { type Choice, FormField } from "./form-field";
import { type FormPath, RULE_FIELDS, type RuleField } from "./form-model";

const CHOICES: Partial<Record<RuleField, readonly Choice[]>> = {
  operator: [
    { value: "", label: "not set" },
    ...["gt", "lt", "eq", "gteq", "lteq"].map((value) => ({ value, label: value })),
  ],
  faultOnMatch: [
    { value: "", label: "not set" },
    { value: "true", label: "true" },
    { value: "false", label: "false" },
  ],
};

const NUMERIC: ReadonlySet<RuleField> = new Set([
  "expectedStartCutOffInSeconds",
  "expectedRecurringFrequencyInSeconds",
  "metricThreshold",
  "metricEvaluationDataPoints",
]);

/** One log monitoring rule's fields, what it does in words beside them, and its removal. */
export function RuleFields(props: {
  index: number;
  values: Record<RuleField, string>;
  errors: Readonly<Record<string, string>>;
  disabled: boolean;
  explanation: string | null;
  onField: (path: FormPath, input: string) => void;
  onRemove: () => void;
}) {
  const { index, values } = props;
  const title = `Rule ${index + 1}${values.name ? `: ${values.name}` : ""}`;
  return (
    <fieldset className={styles.group}>
      <legend>{title}</legend>
      <div className={styles.ruleHeader}>
        <p className={styles.explain}>
          <span className="sr-only">What {title} does: </span>
          {props.explanation ?? "Explained once the policy is valid."}
        </p>
        {props.disabled ? null : (
          <button type="button" className="button button-secondary" onClick={props.onRemove}>
            Remove {title}
          </button>
        )}
      </div>
      <div className={styles.fields}>
        {RULE_FIELDS.map((key) => {
          const path: FormPath = ["logMonitoringConfiguration", index, key];
          return (
            <FormField
              key={key}
              id={`policy-form-${formKey(path)}`}
              name={key}
              value={values[key]}
              error={props.errors[formKey(path)]}
              choices={CHOICES[key]}
              numeric={NUMERIC.has(key)}
              disabled={props.disabled}
              onChange={(input) => props.onField(path, input)}
            />
          );
        })}
      </div>
    </fieldset>
  );
}
