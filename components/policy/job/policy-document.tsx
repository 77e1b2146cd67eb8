"use client";

import { PolicyForm } from "@/components/policy/editor/form/policy-form";
import { PolicyProblems } from "@/components/policy/editor/policy-problems";
import { type PolicyCheck, problemsOfCheck } from "@/components/policy/editor/use-policy-check";
import { PolicySource } from "./policy-source";

/**
 * The draft run policy: the YAML editor (read-only for viewers) with what is wrong at which line and
 * column, and the form view of the common fields kept in sync through the YAML, each rule in words.
 */
export function PolicyDocument(props: {
  value: string;
  onChange: (value: string) => void;
  readOnly: boolean;
  check: PolicyCheck;
}) {
  return (
    <div className="stack">
      <section className="card" aria-labelledby="policy-document-heading">
        <h2 id="policy-document-heading">Run policy</h2>
        {props.readOnly ? (
          <p className="muted">Read only: engineers of the job's team and cluster admins change it.</p>
        ) : null}
        <PolicySource value={props.value} onChange={props.onChange} readOnly={props.readOnly} />
        <PolicyProblems check={props.check} />
      </section>
      <section className="card" aria-labelledby="policy-form-heading">
        <h2 id="policy-form-heading">Form</h2>
        <PolicyForm
          yaml={props.value}
          onChange={props.onChange}
          readOnly={props.readOnly}
          problems={problemsOfCheck(props.check)}
          explanation={props.check.explanation}
        />
      </section>
    </div>
  );
}
