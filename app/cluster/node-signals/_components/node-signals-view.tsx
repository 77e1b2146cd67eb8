"use client";

import { useQuery } from "@tanstack/react-query";
import { ErrorState, LoadingState } from "@/components/ui/query-state";
import { useTRPC } from "@/lib/trpc/client";
import { CordonToggle } from "./cordon-toggle";
import { SignalsHistory } from "./signals-history";
import { SignalsTable } from "./signals-table";
import { TableEditor } from "./table-editor";

const when = (at: Date) => `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** The node-signal table: read by everyone signed in, changed by cluster admins (toggle, editor, reset). */
export function NodeSignalsView() {
  const trpc = useTRPC();
  const signals = useQuery(trpc.nodeSignals.get.queryOptions());
  if (signals.isPending) return <LoadingState label="the node-signal table" />;
  if (signals.isError)
    return (
      <ErrorState
        title="Could not load the node-signal table"
        error={signals.error}
        onRetry={() => signals.refetch()}
      />
    );
  const view = signals.data;
  return (
    <div className="stack">
      <p className="muted">
        Version {view.version} ·{" "}
        {view.isDefault ? "the shipped defaults" : "changed from the shipped defaults"}
        {view.updatedBy && view.updatedAt
          ? ` · last changed by ${view.updatedBy.name} at ${when(view.updatedAt)}`
          : ""}
      </p>
      {view.canEdit ? null : <p role="note">Only a cluster admin can change the node-signal table.</p>}
      {view.problem ? (
        <p role="alert" className="form-error">
          {view.problem}. The shipped table is shown; save or reset to replace the stored one.
        </p>
      ) : null}
      <section className="card" aria-labelledby="cordon-heading">
        <h2 id="cordon-heading">Cordon</h2>
        <CordonToggle key={view.version} view={view} />
      </section>
      <section className="card" aria-labelledby="rows-heading">
        <h2 id="rows-heading">Rows</h2>
        <SignalsTable rules={view.rules} />
      </section>
      {view.canEdit ? (
        <section className="card" aria-labelledby="editor-heading">
          <h2 id="editor-heading">Edit the table</h2>
          <TableEditor key={view.version} view={view} />
        </section>
      ) : null}
      <section className="card" aria-labelledby="history-heading">
        <h2 id="history-heading">Recent changes</h2>
        <SignalsHistory entries={view.history} />
      </section>
    </div>
  );
}
