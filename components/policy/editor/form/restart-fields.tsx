import { formKey } from "./field-errors";
import styles from "./form.module.css";
import { type Choice, FormField } from "./form-field";
import { type FormPath, type PolicyFormValues, RESTART_FIELDS } from "./form-model";

const CLEAN_POD_CHOICES: readonly Choice[] = [
  { value: "", label: "not set (All)" },
  { value: "All", label: "All" },
  { value: "OnlyComplete", label: "OnlyComplete" },
  { value: "None", label: "None" },
];

/** restartPolicy's numbers, jobMaxRetryCount and cleanPodPolicy, with the restart policy in words. */
export function RestartFields(props: {
  values: PolicyFormValues;
  errors: Readonly<Record<string, string>>;
  disabled: boolean;
  explanation: readonly string[] | null;
  onField: (path: FormPath, input: string) => void;
}) {
  const { values, errors, disabled, onField } = props;
  const field = (path: FormPath, value: string, extra?: { choices?: readonly Choice[] }) => (
    <FormField
      key={formKey(path)}
      id={`policy-form-${formKey(path)}`}
      name={String(path[path.length - 1])}
      value={value}
      error={errors[formKey(path)]}
      numeric={extra?.choices === undefined}
      choices={extra?.choices}
      disabled={disabled}
      onChange={(input) => onField(path, input)}
    />
  );
  return (
    <fieldset className={styles.group}>
      <legend>Restarts and retries</legend>
      <div className={styles.fields}>
        {RESTART_FIELDS.map((key) => field(["restartPolicy", key], values.restartPolicy[key]))}
        {field(["jobMaxRetryCount"], values.jobMaxRetryCount)}
        {field(["cleanPodPolicy"], values.cleanPodPolicy, { choices: CLEAN_POD_CHOICES })}
      </div>
      {props.explanation && props.explanation.length > 0 ? (
        <div className={styles.explain}>
          <ul>
            {props.explanation.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </div>
      ) : null}
    </fieldset>
  );
}
