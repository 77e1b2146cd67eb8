"use client";

import { useQuery } from "@tanstack/react-query";
import { ErrorState, LoadingState } from "@/components/ui/query-state";
import { useTRPC } from "@/lib/trpc/client";
import { MappingList } from "./mapping-list";
import { NewMappingForm } from "./new-mapping-form";

/**
 * /governance/sso: single sign-on's group → role mappings, for cluster admins. Anyone else gets the server's
 * refusal of the list (the page hides nothing the server would give).
 */
export function GroupMappingsAdmin() {
  const trpc = useTRPC();
  const status = useQuery(trpc.sso.status.queryOptions());
  const mappings = useQuery(trpc.sso.listMappings.queryOptions());
  if (mappings.isPending || status.isPending) return <LoadingState label="the group mappings" />;
  if (mappings.isError)
    return (
      <ErrorState
        title="Could not load the group mappings"
        error={mappings.error}
        onRetry={() => mappings.refetch()}
      />
    );
  if (status.isError)
    return (
      <ErrorState
        title="Could not load single sign-on's status"
        error={status.error}
        onRetry={() => status.refetch()}
      />
    );
  return (
    <div className="stack">
      <p className="muted">
        {status.data.enabled
          ? `Signing in with ${status.data.providerName}; groups are read from the ${status.data.groupsClaim} claim.`
          : "Single sign-on is not configured (REBOUND_OIDC_ISSUER): these mappings apply once it is."}{" "}
        {status.data.localPasswords ? "Local passwords also sign in." : "Local passwords are off."}
      </p>
      <section className="card" aria-labelledby="new-mapping-heading">
        <h2 id="new-mapping-heading">New mapping</h2>
        <NewMappingForm />
      </section>
      <section className="card" aria-labelledby="mappings-heading">
        <h2 id="mappings-heading">Group mappings</h2>
        <MappingList mappings={mappings.data} />
      </section>
    </div>
  );
}
