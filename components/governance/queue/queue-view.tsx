"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { DataTable } from "@/components/ui/data-table";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/query-state";
import { useTRPC } from "@/lib/trpc/client";
import styles from "../governance.module.css";
import { WhyPending } from "../why-pending";
import { admittedColumns, pendingColumns, preemptedColumns } from "./queue-columns";

/** Why the opened row's job waits, shown under the table that holds it. */
function WhyPanel({
  row,
  refreshKey,
}: {
  row: { namespace: string; name: string } | null;
  refreshKey: string;
}) {
  return (
    <div id="queue-why-pending" aria-live="polite">
      {row ? (
        <section aria-label={`Why ${row.name} is pending`}>
          <WhyPending namespace={row.namespace} name={row.name} refreshKey={refreshKey} />
        </section>
      ) : null}
    </div>
  );
}

/**
 * A team's queue: pending jobs in admission order (position, priority, how long they wait, why), the
 * admitted ones, and the preempted ones (by whom, why). Fetched again when the server says the queue moved
 * (GovernanceLive, governance-live.tsx), never polled.
 */
export function QueueView({ team }: { team: string }) {
  const trpc = useTRPC();
  const queue = useQuery(trpc.governance.queue.queryOptions({ team }));
  const [open, setOpen] = useState<string | null>(null);
  if (queue.isPending) return <LoadingState label="the queue" />;
  if (queue.isError)
    return (
      <ErrorState title="Could not load the queue" error={queue.error} onRetry={() => queue.refetch()} />
    );
  const { pending, admitted, preempted } = queue.data;
  const openedPending = pending.find((row) => row.key === open) ?? null;
  const openedPreempted = preempted.find((row) => row.key === open) ?? null;
  const refreshKey = String(queue.dataUpdatedAt);
  const why = { open, onToggle: (key: string) => setOpen((now) => (now === key ? null : key)) };
  return (
    <div className="stack">
      <h3 className={styles.subheading}>Pending ({pending.length})</h3>
      {pending.length === 0 ? (
        <EmptyState>No job is waiting.</EmptyState>
      ) : (
        <DataTable
          label="Pending jobs"
          columns={pendingColumns(why)}
          rows={pending}
          rowKey={(row) => row.key}
        />
      )}
      {openedPending ? <WhyPanel row={openedPending} refreshKey={refreshKey} /> : null}
      <h3 className={styles.subheading}>Admitted ({admitted.length})</h3>
      {admitted.length === 0 ? (
        <EmptyState>No job is admitted.</EmptyState>
      ) : (
        <DataTable
          label="Admitted jobs"
          columns={admittedColumns}
          rows={admitted}
          rowKey={(row) => row.key}
        />
      )}
      <h3 className={styles.subheading}>Preempted ({preempted.length})</h3>
      {preempted.length === 0 ? (
        <EmptyState>No job was preempted.</EmptyState>
      ) : (
        <DataTable
          label="Preempted jobs"
          columns={preemptedColumns(why)}
          rows={preempted}
          rowKey={(row) => row.key}
        />
      )}
      {openedPreempted ? <WhyPanel row={openedPreempted} refreshKey={refreshKey} /> : null}
    </div>
  );
}
