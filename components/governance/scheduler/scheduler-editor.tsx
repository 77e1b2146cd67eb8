"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorState, LoadingState } from "@/components/ui/query-state";
import { useTRPC } from "@/lib/trpc/client";
import { SchedulerForm } from "./scheduler-form";
import { SchedulerSummary } from "./scheduler-summary";

/** The cluster's scheduler config: editable by cluster admins, read-only for everyone else. */
export function SchedulerEditor() {
  const trpc = useTRPC();
  const scheduler = useQuery(trpc.governance.scheduler.get.queryOptions());
  const [saved, setSaved] = useState<number | null>(null);
  if (scheduler.isPending) return <LoadingState label="the scheduler config" />;
  if (scheduler.isError)
    return (
      <ErrorState
        title="Could not load the scheduler config"
        error={scheduler.error}
        onRetry={() => scheduler.refetch()}
      />
    );
  const view = scheduler.data;
  return (
    <>
      <p className="muted">
        Version {view.version}
        {view.updatedBy ? ` · last changed by ${view.updatedBy.name}` : ""}
      </p>
      {saved !== null ? <p role="status">Saved: the scheduler config is now at version {saved}.</p> : null}
      {view.canEdit ? (
        <SchedulerForm
          key={view.version}
          view={view}
          onReload={() => {
            setSaved(null);
            void scheduler.refetch();
          }}
          onSaved={setSaved}
        />
      ) : (
        <SchedulerSummary view={view} />
      )}
    </>
  );
}
