"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorState, LoadingState } from "@/components/ui/query-state";
import { useTRPC } from "@/lib/trpc/client";
import { QuotaForm } from "./quota-form";
import { QuotaSummary } from "./quota-summary";

function formatWhen(at: Date | null): string {
  return at ? at.toLocaleString("en-US", { dateStyle: "medium", timeStyle: "short" }) : "never";
}

/**
 * A team's quota: the editor for its team admins and cluster admins, read-only for everyone else (the
 * server refuses their writes anyway). The form is keyed by version, so a reload starts from the new one.
 */
export function QuotaEditor({ team }: { team: string }) {
  const trpc = useTRPC();
  const quota = useQuery(trpc.governance.quota.get.queryOptions({ team }));
  const [saved, setSaved] = useState<number | null>(null);
  if (quota.isPending) return <LoadingState label="the quota" />;
  if (quota.isError)
    return (
      <ErrorState title="Could not load the quota" error={quota.error} onRetry={() => quota.refetch()} />
    );
  const view = quota.data;
  return (
    <>
      <p className="muted">
        Version {view.version} · last changed {formatWhen(view.updatedAt)}
        {view.updatedBy ? ` by ${view.updatedBy.name}` : ""}
      </p>
      {saved !== null ? <p role="status">Saved: the quota is now at version {saved}.</p> : null}
      {view.canEdit ? (
        <QuotaForm
          key={view.version}
          view={view}
          onReload={() => {
            setSaved(null);
            void quota.refetch();
          }}
          onSaved={setSaved}
        />
      ) : (
        <QuotaSummary view={view} />
      )}
    </>
  );
}
