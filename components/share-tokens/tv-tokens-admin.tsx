"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorState, LoadingState } from "@/components/ui/query-state";
import { useTRPC } from "@/lib/trpc/client";
import type { CreatedShareToken } from "@/server/services/share-tokens/share-tokens.schema";
import { CreateTokenForm } from "./create-token-form";
import { CreatedTokenNotice } from "./created-token-notice";
import { TokenList } from "./token-list";

/**
 * /governance/tv-tokens: read-only TV tokens, for cluster admins. Anyone else gets the server's refusal of
 * the list (the page hides nothing the server would give).
 */
export function TvTokensAdmin() {
  const trpc = useTRPC();
  const [created, setCreated] = useState<CreatedShareToken | null>(null);
  const tokens = useQuery(trpc.shareTokens.list.queryOptions());
  if (tokens.isPending) return <LoadingState label="the TV tokens" />;
  if (tokens.isError)
    return (
      <ErrorState
        title="Could not load the TV tokens"
        error={tokens.error}
        onRetry={() => tokens.refetch()}
      />
    );
  return (
    <div className="stack">
      <section className="card" aria-labelledby="new-token-heading">
        <h2 id="new-token-heading">New TV token</h2>
        {created ? <CreatedTokenNotice created={created} onDismiss={() => setCreated(null)} /> : null}
        <CreateTokenForm onCreated={setCreated} />
      </section>
      <section className="card" aria-labelledby="tokens-heading">
        <h2 id="tokens-heading">TV tokens</h2>
        <TokenList tokens={tokens.data} updatedAt={tokens.dataUpdatedAt} onRefresh={() => tokens.refetch()} />
      </section>
    </div>
  );
}
