"use client";

/**
 * The form view of a policy's common fields, kept in sync with the YAML both ways: it reads the YAML
 * Document on every render and writes each change back into it (form-model.ts), so comments and order
 * survive. YAML the form cannot edit safely (a syntax error, a field of the wrong shape) keeps it read-only
 * with "fix the YAML first"; schema mistakes show beside their fields.
 */
import { useMemo } from "react";
import { fieldErrors } from "./field-errors";
import styles from "./form.module.css";
import { addRule, type FormPath, readForm, removeRule, writeField } from "./form-model";
import { RestartFields } from "./restart-fields";
import { RuleFields } from "./rule-fields";

export type PolicyExplanation = {
  rules: ReadonlyArray<{ name: string; text: string }>;
  restart: readonly string[];
};

type Problem = { path: string; message: string };

function newRuleName(names: readonly string[]): string {
  let n = names.length + 1;
  while (names.includes(`rule-${n}`)) n++;
  return `rule-${n}`;
}

export function PolicyForm(props: {
  yaml: string;
  onChange: (yaml: string) => void;
  readOnly: boolean;
  /** The schema's errors and warnings for this YAML (parsePolicyYaml). */
  problems: readonly Problem[];
  /** explainPolicy of this YAML; null while it does not parse. */
  explanation: PolicyExplanation | null;
}) {
  const { yaml, onChange, readOnly } = props;
  const read = useMemo(() => readForm(yaml), [yaml]);
  const errors = useMemo(() => fieldErrors(props.problems), [props.problems]);
  if (!read.ok) {
    return (
      <p className={styles.blocked} role="status">
        Fix the YAML first: {read.reason}. The form shows the policy again once the YAML reads.
      </p>
    );
  }
  const onField = (path: FormPath, input: string) => onChange(writeField(yaml, path, input));
  const { values } = read;
  return (
    <div className={styles.form}>
      <RestartFields
        values={values}
        errors={errors}
        disabled={readOnly}
        explanation={props.explanation?.restart ?? null}
        onField={onField}
      />
      {values.rules.map((rule, index) => (
        <RuleFields
          // Rules have no identity but their place in the list (names may repeat).
          // biome-ignore lint/suspicious/noArrayIndexKey: the index is the rule's identity here
          key={index}
          index={index}
          values={rule}
          errors={errors}
          disabled={readOnly}
          explanation={props.explanation?.rules[index]?.text ?? null}
          onField={onField}
          onRemove={() => onChange(removeRule(yaml, index))}
        />
      ))}
      {readOnly ? null : (
        <div className="actions">
          <button
            type="button"
            className="button button-secondary"
            onClick={() =>
              onChange(
                addRule(yaml, { name: newRuleName(values.rules.map((r) => r.name)), logPattern: ".*" }),
              )
            }
          >
            Add a log rule
          </button>
        </div>
      )}
    </div>
  );
}
