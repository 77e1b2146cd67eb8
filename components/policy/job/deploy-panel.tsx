"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { serverRefusal } from "@/components/governance/form-errors";
import { useTRPC } from "@/lib/trpc/client";
import styles from "./policy.module.css";
import { RefusalNotice } from "./refusal-notice";
import type { JobRef, VersionChoice } from "./types";
import { VersionPicker } from "./version-picker";

/**
 * Puts a saved version to work on the job: Apply (enforcing: it replaces the job's runPolicy, and the
 * agents get its rules at the next restart) or Shadow (its rules watch the job's output and report what
 * they would have done, acting on nothing). Both are checked against the job as it was read.
 */
export function DeployPanel(props: {
  job: JobRef;
  teamId: string;
  resourceVersion: string;
  choice: VersionChoice | null;
  onChoice: (choice: VersionChoice | null) => void;
  onChanged: () => void;
}) {
  const trpc = useTRPC();
  const [done, setDone] = useState<string | null>(null);
  const apply = useMutation(trpc.policies.applyPolicy.mutationOptions());
  const shadow = useMutation(trpc.policies.setShadow.mutationOptions());
  const failed = apply.error ?? shadow.error;
  const { choice } = props;
  const label = choice ? `${choice.name} v${choice.version}` : "";
  const busy = apply.isPending || shadow.isPending;
  const reset = () => {
    apply.reset();
    shadow.reset();
    setDone(null);
  };

  return (
    <section className="card" aria-labelledby="deploy-heading">
      <h2 id="deploy-heading">Apply or shadow a saved version</h2>
      <VersionPicker
        teamId={props.teamId}
        value={choice}
        onChange={(next) => {
          reset();
          props.onChoice(next);
        }}
      />
      <div className={styles.toolbar}>
        <button
          type="button"
          className="button"
          disabled={!choice || busy}
          onClick={() => {
            if (!choice) return;
            reset();
            apply.mutate(
              {
                ...props.job,
                policyId: choice.policyId,
                version: choice.version,
                expectedVersion: props.resourceVersion,
              },
              {
                onSuccess: (out) => {
                  setDone(`Applied ${label}: ${out.takesEffect}`);
                  props.onChanged();
                },
              },
            );
          }}
        >
          Apply {label || "version"} (enforcing)
        </button>
        <button
          type="button"
          className="button button-secondary"
          disabled={!choice || busy}
          onClick={() => {
            if (!choice) return;
            reset();
            shadow.mutate(
              { ...props.job, shadow: { policyId: choice.policyId, version: choice.version } },
              {
                onSuccess: () => {
                  setDone(`${label} runs in shadow mode: it reports what it would do and acts on nothing.`);
                  props.onChanged();
                },
              },
            );
          }}
        >
          Run {label || "version"} in shadow mode
        </button>
      </div>
      {done ? (
        <p role="status" className={styles.notice}>
          {done}
        </p>
      ) : null}
      {failed ? <RefusalNotice refusal={serverRefusal(failed)} onReload={props.onChanged} /> : null}
    </section>
  );
}
