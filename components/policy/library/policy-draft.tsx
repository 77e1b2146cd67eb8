"use client";

import { useState } from "react";
import type { ServerProblems } from "@/components/policy/editor/extensions";
import { PolicyForm } from "@/components/policy/editor/form/policy-form";
import { PolicyProblems } from "@/components/policy/editor/policy-problems";
import { PolicyYamlEditor } from "@/components/policy/editor/policy-yaml-editor";
import { problemsOfCheck, usePolicyCheck } from "@/components/policy/editor/use-policy-check";
import styles from "./library.module.css";
import { SaveVersionForm } from "./save-version-form";

/**
 * One policy being edited: the YAML editor and the form view side by side (kept in sync through the YAML),
 * the check in words, each rule explained, and "Save as new version" for those who may edit. The draft
 * starts from the latest version when mounted; the workspace remounts it on a reload.
 */
export function PolicyDraft(props: {
  id: string;
  latest: { version: number; yaml: string };
  canEdit: boolean;
  onReload: () => void;
}) {
  const [draft, setDraft] = useState(props.latest.yaml);
  const [base, setBase] = useState(props.latest);
  const [serverProblems, setServerProblems] = useState<ServerProblems | null>(null);
  const [saved, setSaved] = useState<number | null>(null);
  const check = usePolicyCheck(draft);
  const readOnly = !props.canEdit;
  const edit = (next: string) => {
    setDraft(next);
    setSaved(null);
  };
  const blocked =
    draft === base.yaml
      ? `No changes since version ${base.version}.`
      : check.yaml === draft && !check.parse.ok
        ? "Fix the errors marked in the editor first."
        : null;
  return (
    <div className="stack">
      {readOnly ? (
        <p className="muted" role="note">
          You can read this policy; engineers and admins of its team can change it.
        </p>
      ) : null}
      <div className={styles.workspace}>
        <section className="card" aria-labelledby="policy-yaml-heading">
          <h2 id="policy-yaml-heading">YAML</h2>
          <PolicyYamlEditor
            value={draft}
            onChange={edit}
            readOnly={readOnly}
            label="Policy YAML"
            minHeight="420px"
            serverProblems={serverProblems}
          />
          <PolicyProblems check={check} />
        </section>
        <section className="card" aria-labelledby="policy-form-heading">
          <h2 id="policy-form-heading">Form</h2>
          <PolicyForm
            yaml={draft}
            onChange={edit}
            readOnly={readOnly}
            problems={problemsOfCheck(check)}
            explanation={check.explanation}
          />
        </section>
      </div>
      {props.canEdit ? (
        <section className="card" aria-labelledby="policy-save-heading">
          <h2 id="policy-save-heading">Save as new version</h2>
          {saved !== null ? <p role="status">Saved as version {saved}.</p> : null}
          <SaveVersionForm
            id={props.id}
            yaml={draft}
            baseVersion={base.version}
            blocked={blocked}
            onSaved={(saved) => {
              setBase(saved);
              setSaved(saved.version);
              setServerProblems(null);
            }}
            onRefused={(refusal, yaml) => setServerProblems({ yaml, problems: refusal.problems })}
            onReload={props.onReload}
          />
        </section>
      ) : null}
    </div>
  );
}
