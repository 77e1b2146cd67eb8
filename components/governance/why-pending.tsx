"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/query-state";
import { formatQuantity, resourceLabel } from "@/lib/format";
import { useTRPC } from "@/lib/trpc/client";
import type { WhyPendingView } from "@/server/services/governance/governance.schema";
import styles from "./governance.module.css";
import { useRefetchOnChange } from "./use-refetch-on-change";

function Shortfall({ view }: { view: WhyPendingView }) {
  if (view.shortfall.length === 0) return null;
  return (
    <table className="data-table" aria-label={`What ${view.key} is missing`}>
      <thead>
        <tr>
          <th scope="col">Instance type</th>
          <th scope="col">Resource</th>
          <th scope="col" className="num">
            Needs
          </th>
          <th scope="col" className="num">
            Available
          </th>
          <th scope="col" className="num">
            Missing
          </th>
        </tr>
      </thead>
      <tbody>
        {view.shortfall.map((row) => (
          <tr key={`${row.flavor}/${row.resource}`}>
            <td>
              <code>{row.flavor}</code>
            </td>
            <td>{resourceLabel(row.resource)}</td>
            <td className="num">{formatQuantity(row.resource, row.need)}</td>
            <td className="num">{formatQuantity(row.resource, row.available)}</td>
            <td className="num">
              <strong>{formatQuantity(row.resource, row.missing)}</strong>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Explanation({ view }: { view: WhyPendingView }) {
  return (
    <div className={styles.why}>
      <p>
        <strong>{view.reason}</strong> · position {view.position} in{" "}
        <Link href={`/governance/teams/${view.team}`}>{view.team}'s queue</Link>
      </p>
      <p>{view.text}</p>
      <Shortfall view={view} />
      {view.ahead.length > 0 ? (
        <>
          <p>Ahead of it ({view.ahead.length}):</p>
          <ol aria-label="Ahead of it">
            {view.ahead.slice(0, 10).map((key) => (
              <li key={key}>
                <Link href={`/jobs/${key}`}>{key}</Link>
              </li>
            ))}
          </ol>
          {view.ahead.length > 10 ? <p className="muted">… and {view.ahead.length - 10} more.</p> : null}
        </>
      ) : null}
      {view.wouldRun.length > 0 ? (
        <>
          <p>It would run if:</p>
          <ul aria-label="It would run if">
            {view.wouldRun.map((way) => (
              <li key={way}>{way}</li>
            ))}
          </ul>
        </>
      ) : null}
    </div>
  );
}

/**
 * Why a job waits, in numbers (`governance.whyPending`): which resource, how much is missing, what is
 * ahead of it and what would let it run. Fetched when shown; `refreshKey` changing (the job's state moved)
 * fetches it again, so nothing polls.
 */
export function WhyPending(props: { namespace: string; name: string; refreshKey?: string }) {
  const trpc = useTRPC();
  const why = useQuery(
    trpc.governance.whyPending.queryOptions({ namespace: props.namespace, name: props.name }),
  );
  useRefetchOnChange(props.refreshKey, why.refetch);
  if (why.isPending) return <LoadingState label="why it is pending" />;
  if (why.isError)
    return (
      <ErrorState title="Could not tell why it is pending" error={why.error} onRetry={() => why.refetch()} />
    );
  if (why.data === null)
    return (
      <EmptyState>
        Not waiting for admission now: it holds its capacity (or is stopping for a preemption).
      </EmptyState>
    );
  return <Explanation view={why.data} />;
}
