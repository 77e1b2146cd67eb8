"use client";

import Link from "next/link";
import { useState } from "react";
import { DryRunPanel } from "@/components/policy/dry-run/dry-run-panel";
import { usePolicyCheck } from "@/components/policy/editor/use-policy-check";
import { DeployPanel } from "./deploy-panel";
import { JobPolicyHeader } from "./job-policy-header";
import styles from "./policy.module.css";
import { PolicyAudit } from "./policy-audit";
import { PolicyDocument } from "./policy-document";
import { SaveVersionPanel } from "./save-version-panel";
import { ShadowPanel } from "./shadow-panel";
import type { JobPolicy, JobRef, ShadowVerdictView, VersionChoice } from "./types";
import { VersionDiff } from "./version-diff";

/** What the job page's live stream adds: new rules waiting for a restart, and the shadow's verdicts. */
export type LivePolicyState = { pendingRestart: boolean; verdicts: readonly ShadowVerdictView[] } | null;

/**
 * The job's policy workspace: the draft (the job's current runPolicy to start with) checked as typed and
 * explained, a dry-run of the draft, and for the job's team's engineers: save it into the team's library,
 * see what the version changed, apply a saved version or run it in shadow mode, promote the shadow.
 * Viewers see the same page read-only; the server refuses their writes anyway.
 */
export function JobPolicyWorkspace(props: {
  job: JobRef;
  current: JobPolicy;
  live: LivePolicyState;
  onJobChanged: () => void;
}) {
  const { job, current } = props;
  const [draft, setDraft] = useState(current.yaml);
  const [saved, setSaved] = useState<VersionChoice | null>(null);
  const [choice, setChoice] = useState<VersionChoice | null>(null);
  const check = usePolicyCheck(draft);
  /** The check is of the text on screen (it trails typing by a moment) and the text parses. */
  const draftOk = check.yaml === draft && check.parse.ok;
  const canEdit = current.canApply && current.teamId !== null;
  const shadowPolicy = current.shadow?.policy ?? null;
  return (
    <div className="stack">
      <JobPolicyHeader
        job={job}
        applied={current.appliedPolicy}
        shadow={shadowPolicy}
        pendingRestart={props.live?.pendingRestart ?? current.pendingRestart}
      />
      <div className={styles.layout}>
        <PolicyDocument value={draft} onChange={setDraft} readOnly={!canEdit} check={check} />
        <div className="stack">
          {canEdit && current.teamId !== null ? (
            <>
              <SaveVersionPanel
                job={job}
                teamId={current.teamId}
                yaml={draft}
                canSave={draftOk}
                onSaved={(version) => {
                  setSaved(version);
                  setChoice(version);
                }}
              />
              {saved ? <VersionDiff saved={saved} /> : null}
              <DeployPanel
                job={job}
                teamId={current.teamId}
                resourceVersion={current.resourceVersion}
                choice={choice}
                onChoice={setChoice}
                onChanged={props.onJobChanged}
              />
            </>
          ) : null}
          <ShadowPanel
            job={job}
            shadow={shadowPolicy}
            verdicts={props.live?.verdicts ?? []}
            canAct={canEdit}
            resourceVersion={current.resourceVersion}
            onChanged={props.onJobChanged}
          />
        </div>
      </div>
      <DryRunPanel yaml={draft} job={job} ranks={current.ranks} policyOk={draftOk} />
      {current.teamId !== null ? <PolicyAudit teamId={current.teamId} /> : null}
      <p>
        <Link href={`/jobs/${job.namespace}/${job.name}`}>Back to {job.name}</Link>
      </p>
    </div>
  );
}
