"use client";

import { useQuery } from "@tanstack/react-query";
import { DataTable } from "@/components/ui/data-table";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/query-state";
import { useTRPC } from "@/lib/trpc/client";
import { tokenColumns } from "./token-columns";

/** Every TV token with its scope, last use and status; refreshed on demand (no polling loop). */
export function TokenList() {
  const trpc = useTRPC();
  const tokens = useQuery(trpc.shareTokens.list.queryOptions());
  if (tokens.isPending) return <LoadingState label="the TV tokens" />;
  if (tokens.isError)
    return (
      <ErrorState
        title="Could not load the TV tokens"
        message={tokens.error.message}
        onRetry={() => tokens.refetch()}
      />
    );
  if (tokens.data.length === 0) return <EmptyState>No TV token yet. Create one above.</EmptyState>;
  return (
    <>
      <p>
        <button type="button" className="button button-secondary" onClick={() => tokens.refetch()}>
          Refresh
        </button>
      </p>
      <DataTable
        label="TV tokens"
        columns={tokenColumns(tokens.dataUpdatedAt)}
        rows={tokens.data}
        rowKey={(token) => token.id}
      />
    </>
  );
}
