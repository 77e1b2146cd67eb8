"use client";

import { useQuery } from "@tanstack/react-query";
import { type Column, DataTable } from "@/components/ui/data-table";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/query-state";
import { useTRPC } from "@/lib/trpc/client";
import type { DeliveryView } from "@/server/services/notifications/notifications.schema";

const columns: ReadonlyArray<Column<DeliveryView>> = [
  { id: "at", header: "Created", cell: (row) => row.createdAt.toLocaleString() },
  { id: "channel", header: "Channel", cell: (row) => row.channel },
  { id: "event", header: "Event", cell: (row) => row.event },
  { id: "summary", header: "Summary", cell: (row) => row.summary },
  { id: "status", header: "Status", cell: (row) => row.status },
  { id: "attempts", header: "Attempts", cell: (row) => row.attempts },
  { id: "code", header: "Response", cell: (row) => row.responseCode ?? "—" },
  { id: "error", header: "Last error", cell: (row) => row.lastError ?? "" },
];

/** The team's delivery log, newest first; polled, since the notifier sends in the background. */
export function DeliveryLog({ team }: { team: string }) {
  const trpc = useTRPC();
  const log = useQuery({ ...trpc.notifications.deliveries.queryOptions({ team }), refetchInterval: 5000 });
  if (log.isPending) return <LoadingState label="deliveries" />;
  if (log.isError)
    return <ErrorState title="Could not load deliveries" error={log.error} onRetry={() => log.refetch()} />;
  if (log.data.length === 0) return <EmptyState>Nothing delivered yet.</EmptyState>;
  return <DataTable label="Deliveries" columns={columns} rows={log.data} rowKey={(row) => row.id} />;
}
