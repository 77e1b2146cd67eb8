"use client";

import { useQuery } from "@tanstack/react-query";
import { VersionDiff as DiffOf } from "@/components/policy/library/version-diff";
import { ErrorState, LoadingState } from "@/components/ui/query-state";
import { useTRPC } from "@/lib/trpc/client";
import type { VersionChoice } from "./types";

/** What a saved version changed against the one before it (version 1 has nothing before it). */
export function VersionDiff(props: { saved: VersionChoice }) {
  const trpc = useTRPC();
  const { policyId, name, version } = props.saved;
  const first = version <= 1;
  const diff = useQuery({
    ...trpc.policies.diff.queryOptions({ id: policyId, from: Math.max(1, version - 1), to: version }),
    enabled: !first,
  });
  const title = `${name} v${version - 1} → v${version}`;
  return (
    <section className="card" aria-labelledby="version-diff-heading">
      <h2 id="version-diff-heading">{first ? `${name} v1` : `Changes: ${title}`}</h2>
      {first ? (
        <p className="muted">The first version of {name}: nothing before it to compare with.</p>
      ) : diff.isPending ? (
        <LoadingState label="the diff" />
      ) : diff.isError ? (
        <ErrorState title="Could not load the diff" error={diff.error} />
      ) : (
        <DiffOf from={version - 1} to={version} lines={diff.data.lines} label={`Diff ${title}`} />
      )}
    </section>
  );
}
