"use client";

import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { ErrorState, LoadingState } from "@/components/ui/query-state";
import { useTRPC } from "@/lib/trpc/client";
import type { WhatIfInput, WhatIfView } from "@/server/api/routers/governance/governance.schema";
import styles from "./governance.module.css";

function Effects({ view }: { view: WhatIfView }) {
  if (view.preempted.length === 0 && view.admitted.length === 0) {
    return <p>Saving this would preempt no running job and admit no pending job.</p>;
  }
  return (
    <>
      <p>Saving this would preempt: {view.preempted.length === 0 ? "no running job" : null}</p>
      {view.preempted.length > 0 ? (
        <ul aria-label="Would preempt">
          {view.preempted.map((victim) => (
            <li key={victim.key}>
              <code>{victim.key}</code> ({victim.team}) for <code>{victim.by}</code> — {victim.reason}
            </li>
          ))}
        </ul>
      ) : null}
      <p>Would admit: {view.admitted.length === 0 ? "no pending job" : null}</p>
      {view.admitted.length > 0 ? (
        <ul aria-label="Would admit">
          {view.admitted.map((job) => (
            <li key={job.key}>
              <code>{job.key}</code> ({job.team}) on {job.flavor}
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}

/**
 * What saving a change would do, computed by the server with the same admission logic the scheduler runs
 * (`governance.whatIf`): which running jobs it would preempt, which pending jobs it would admit. Fetched
 * once when the user reviews the change, not polled.
 */
export function WhatIfPanel({ input, children }: { input: WhatIfInput; children: ReactNode }) {
  const trpc = useTRPC();
  const impact = useQuery({ ...trpc.governance.whatIf.queryOptions(input), staleTime: 0 });
  return (
    <section className={styles.impact} aria-labelledby="impact-heading">
      <h3 id="impact-heading">Impact of this change</h3>
      {impact.isPending ? <LoadingState label="the impact" /> : null}
      {impact.isError ? (
        <ErrorState
          title="Could not compute the impact"
          message={impact.error.message}
          onRetry={() => impact.refetch()}
        />
      ) : null}
      {impact.isSuccess ? <Effects view={impact.data} /> : null}
      <div className={styles.toolbar}>{children}</div>
    </section>
  );
}
