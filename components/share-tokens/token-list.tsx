import { DataTable } from "@/components/ui/data-table";
import { EmptyState } from "@/components/ui/query-state";
import type { ShareTokenView } from "@/server/services/share-tokens/share-tokens.schema";
import { tokenColumns } from "./token-columns";

/**
 * Every TV token with its scope, last use and status, as TvTokensAdmin's list query gave them (it shows the
 * query's loading and error states); refreshed on demand (no polling loop).
 */
export function TokenList(props: {
  tokens: readonly ShareTokenView[];
  /** When the list was read, for relative times. */
  updatedAt: number;
  onRefresh: () => void;
}) {
  if (props.tokens.length === 0) return <EmptyState>No TV token yet. Create one above.</EmptyState>;
  return (
    <>
      <p>
        <button type="button" className="button button-secondary" onClick={props.onRefresh}>
          Refresh
        </button>
      </p>
      <DataTable
        label="TV tokens"
        columns={tokenColumns(props.updatedAt)}
        rows={props.tokens}
        rowKey={(token) => token.id}
      />
    </>
  );
}
