"use client";

import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { ErrorState, LoadingState } from "@/components/ui/query-state";
import { useTRPC } from "@/lib/trpc/client";
import type { WhatIfInput, WhatIfView } from "@/server/services/governance/governance.schema";
import styles from "./governance.module.css";

/** Whether saving over-commits the cluster's GPUs (a quota raise past them), said before anything else. */
function Overcommit({ view }: { view: WhatIfView }) {
  const { overcommit } = view;
  switch (overcommit.state) {
    case "fits":
      return null;
    case "over":
      return (
        <p role="status" className="form-error">
          Over-commit: {overcommit.message}
        </p>
      );
    case "unknown":
      return (
        <p role="status" className="form-error">
          Over-commit unknown: the cluster's GPUs cannot be read ({overcommit.reason}), so whether this raise
          fits is not known.
        </p>
      );
    default:
      return overcommit satisfies never;
  }
}

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
 * (`governance.whatIf`): whether it over-commits the cluster's GPUs, which running jobs it would preempt,
 * which pending jobs it would admit. Fetched once when the user reviews the change, not polled. `children`
 * gets the answer (null until it comes), so the buttons can ask for an over-commit choice.
 */
export function WhatIfPanel({
  input,
  children,
}: {
  input: WhatIfInput;
  children: (view: WhatIfView | null) => ReactNode;
}) {
  const trpc = useTRPC();
  const impact = useQuery({ ...trpc.governance.whatIf.queryOptions(input), staleTime: 0 });
  return (
    <section className={styles.impact} aria-labelledby="impact-heading">
      <h3 id="impact-heading">Impact of this change</h3>
      {impact.isPending ? <LoadingState label="the impact" /> : null}
      {impact.isError ? (
        <ErrorState
          title="Could not compute the impact"
          error={impact.error}
          onRetry={() => impact.refetch()}
        />
      ) : null}
      {impact.isSuccess ? <Overcommit view={impact.data} /> : null}
      {impact.isSuccess ? <Effects view={impact.data} /> : null}
      <div className={styles.toolbar}>{children(impact.isSuccess ? impact.data : null)}</div>
    </section>
  );
}
