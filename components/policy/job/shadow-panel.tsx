"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { serverRefusal } from "@/components/governance/form-errors";
import { formatClock } from "@/components/jobs/format";
import { useTRPC } from "@/lib/trpc/client";
import styles from "./policy.module.css";
import { RefusalNotice } from "./refusal-notice";
import type { JobRef, ShadowVerdictView } from "./types";

/** "12:01:05 · would have restarted rank 3 in place: rule hang HANGING (LogHang_hang)". */
export function verdictSentence(verdict: ShadowVerdictView): string {
  const where = verdict.rank === null ? `pod ${verdict.pod}` : `rank ${verdict.rank}`;
  return `${formatClock(verdict.at)} · ${where}: ${verdict.message}`;
}

/**
 * The shadow rule set on the job: which version, what it would have done so far (live, newest first),
 * "Promote to enforcing" (one click: it becomes the job's runPolicy and the shadow is cleared, audited as
 * a promotion) and Detach. Viewers see the verdicts only.
 */
export function ShadowPanel(props: {
  job: JobRef;
  shadow: { name: string; version: number } | null;
  verdicts: readonly ShadowVerdictView[];
  canAct: boolean;
  resourceVersion: string;
  onChanged: () => void;
}) {
  const trpc = useTRPC();
  const [done, setDone] = useState<string | null>(null);
  const promote = useMutation(trpc.policies.promoteShadow.mutationOptions());
  const detach = useMutation(trpc.policies.setShadow.mutationOptions());
  const failed = promote.error ?? detach.error;
  const label = props.shadow ? `${props.shadow.name} v${props.shadow.version}` : null;
  const newestFirst = [...props.verdicts].sort((a, b) => b.at - a.at);

  return (
    <section className="card" aria-labelledby="shadow-heading">
      <h2 id="shadow-heading">Shadow mode</h2>
      {label ? (
        <p>
          <strong>{label}</strong> watches this job's output and reports what it would have done; it acts on
          nothing.
        </p>
      ) : (
        <p className="muted">No shadow rule set on this job.</p>
      )}
      {props.canAct && label ? (
        <div className={styles.toolbar}>
          <button
            type="button"
            className="button"
            disabled={promote.isPending}
            onClick={() => {
              setDone(null);
              promote.mutate(
                { ...props.job, expectedVersion: props.resourceVersion },
                {
                  onSuccess: (out) => {
                    setDone(`Promoted ${label} to enforcing: ${out.takesEffect}`);
                    props.onChanged();
                  },
                },
              );
            }}
          >
            Promote to enforcing
          </button>
          <button
            type="button"
            className="button button-secondary"
            disabled={detach.isPending}
            onClick={() => {
              setDone(null);
              detach.mutate(
                { ...props.job, shadow: null },
                {
                  onSuccess: () => {
                    setDone(`Detached ${label}.`);
                    props.onChanged();
                  },
                },
              );
            }}
          >
            Detach shadow
          </button>
        </div>
      ) : null}
      {done ? (
        <p role="status" className={styles.notice}>
          {done}
        </p>
      ) : null}
      {failed ? <RefusalNotice refusal={serverRefusal(failed)} onReload={props.onChanged} /> : null}
      <h3>Would have restarted</h3>
      {newestFirst.length === 0 ? (
        <p className="muted">Nothing yet{label ? ": its rules have not fired" : ""}.</p>
      ) : (
        <ol className={styles.verdicts} aria-label="Shadow verdicts">
          {newestFirst.map((verdict) => (
            <li key={verdict.id}>{verdictSentence(verdict)}</li>
          ))}
        </ol>
      )}
    </section>
  );
}
