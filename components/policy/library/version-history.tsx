"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { type Column, DataTable } from "@/components/ui/data-table";
import { ErrorState, LoadingState } from "@/components/ui/query-state";
import { useTRPC } from "@/lib/trpc/client";
import { formatWhen } from "./format";
import { VersionDiff } from "./version-diff";

type Version = { version: number; author: string; createdAt: Date; message: string };

const COLUMNS: ReadonlyArray<Column<Version>> = [
  { id: "version", header: "Version", cell: (row) => `v${row.version}`, numeric: true },
  { id: "author", header: "Author", cell: (row) => row.author },
  { id: "time", header: "Saved", cell: (row) => formatWhen(row.createdAt) },
  {
    id: "message",
    header: "Message",
    cell: (row) => row.message || <span className="muted">no message</span>,
  },
];

function VersionSelect(props: {
  label: string;
  value: number;
  versions: readonly Version[];
  onChange: (v: number) => void;
}) {
  return (
    <label>
      {props.label}
      <select value={props.value} onChange={(event) => props.onChange(Number(event.target.value))}>
        {props.versions.map((row) => (
          <option key={row.version} value={row.version}>
            v{row.version} · {row.author}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A policy's versions (author, time, message) and the diff between any two of them. */
export function VersionHistory(props: { id: string; versions: readonly Version[] }) {
  const trpc = useTRPC();
  const latest = props.versions[0]?.version ?? 1;
  const [from, setFrom] = useState(Math.max(1, latest - 1));
  const [to, setTo] = useState(latest);
  const diff = useQuery({
    ...trpc.policies.diff.queryOptions({ id: props.id, from, to }),
    enabled: props.versions.length > 1,
  });
  return (
    <div className="stack">
      <DataTable
        label="Versions"
        columns={COLUMNS}
        rows={props.versions}
        rowKey={(row) => String(row.version)}
      />
      {props.versions.length < 2 ? (
        <p className="muted">One version so far: save another to compare.</p>
      ) : (
        <section aria-labelledby="policy-diff-heading" className="stack">
          <h3 id="policy-diff-heading" style={{ margin: 0, fontSize: 15 }}>
            Compare versions
          </h3>
          <div className="filters">
            <VersionSelect label="From" value={from} versions={props.versions} onChange={setFrom} />
            <VersionSelect label="To" value={to} versions={props.versions} onChange={setTo} />
          </div>
          {diff.isPending ? (
            <LoadingState label="the diff" />
          ) : diff.isError ? (
            <ErrorState title="Could not compare" error={diff.error} onRetry={() => diff.refetch()} />
          ) : (
            <VersionDiff from={diff.data.from} to={diff.data.to} lines={diff.data.lines} />
          )}
        </section>
      )}
    </div>
  );
}
