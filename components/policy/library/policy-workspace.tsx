"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { ErrorState, LoadingState } from "@/components/ui/query-state";
import { useTRPC } from "@/lib/trpc/client";
import { formatWhen } from "./format";
import { PolicyDraft } from "./policy-draft";
import { VersionHistory } from "./version-history";

/**
 * /policies/[id]: one policy of the library: its editor (read-only for viewers), its versions and the diff
 * between any two. A background refetch never replaces the draft: only "Reload" (after a CONFLICT) does.
 */
export function PolicyWorkspace({ id }: { id: string }) {
  const trpc = useTRPC();
  const policy = useQuery(trpc.policies.get.queryOptions({ id }));
  const [session, setSession] = useState(0);
  if (policy.isPending) return <LoadingState label="the policy" />;
  if (policy.isError)
    return (
      <ErrorState title="Could not load the policy" error={policy.error} onRetry={() => policy.refetch()} />
    );
  const view = policy.data;
  const latest = view.versions[0];
  return (
    <div className="stack">
      <div className="page-header">
        <div>
          <p className="muted" style={{ margin: 0 }}>
            <Link href="/policies">Policies</Link> / {view.team.name}
          </p>
          <h1>{view.name}</h1>
          {view.description ? <p className="muted">{view.description}</p> : null}
        </div>
        <ul className="facts">
          <li>
            Latest <strong>v{view.latest.version}</strong>
          </li>
          {latest ? (
            <li>
              by <strong>{latest.author}</strong>, {formatWhen(latest.createdAt)}
            </li>
          ) : null}
          <li>{view.canEdit ? "You can edit" : "Read-only"}</li>
        </ul>
      </div>
      <PolicyDraft
        key={session}
        id={id}
        latest={view.latest}
        canEdit={view.canEdit}
        onReload={() => {
          void policy.refetch().then(() => setSession((n) => n + 1));
        }}
      />
      <section className="card" aria-labelledby="policy-versions-heading">
        <h2 id="policy-versions-heading">Versions</h2>
        <VersionHistory key={view.latest.version} id={id} versions={view.versions} />
      </section>
    </div>
  );
}
