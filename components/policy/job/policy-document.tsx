"use client";

import type { explainPolicy, PolicyParse } from "@/server/domain/policy";
import styles from "./policy.module.css";
import { PolicyProblems } from "./policy-problems";
import { PolicySource } from "./policy-source";

type Explanation = ReturnType<typeof explainPolicy>;

function PolicyExplanation(props: { explanation: Explanation }) {
  const { rules, restart } = props.explanation;
  return (
    <>
      <h3>Log rules in words</h3>
      {rules.length === 0 ? (
        <p className="muted">No log rules: faults come from exits and node health only.</p>
      ) : (
        <ul className={styles.explain} aria-label="Log rules in words">
          {rules.map((rule) => (
            <li key={rule.name}>
              <strong>{rule.name}</strong> {rule.text}
            </li>
          ))}
        </ul>
      )}
      <h3>Restarts in words</h3>
      <ul className={styles.explain} aria-label="Restart policy in words">
        {restart.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
    </>
  );
}

/**
 * The draft run policy: the YAML editor (read-only for viewers), what is wrong with it at which line, and
 * what it does in words once it parses.
 */
export function PolicyDocument(props: {
  value: string;
  onChange: (value: string) => void;
  readOnly: boolean;
  parse: PolicyParse;
  explanation: Explanation | null;
}) {
  return (
    <section className="card" aria-labelledby="policy-document-heading">
      <h2 id="policy-document-heading">Run policy</h2>
      {props.readOnly ? (
        <p className="muted">Read only: only engineers of the job's team and cluster admins change it.</p>
      ) : null}
      <PolicySource value={props.value} onChange={props.onChange} readOnly={props.readOnly} />
      <PolicyProblems parse={props.parse} />
      {props.explanation ? <PolicyExplanation explanation={props.explanation} /> : null}
    </section>
  );
}
