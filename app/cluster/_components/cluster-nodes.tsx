"use client";

import Link from "next/link";
import { type Column, DataTable } from "@/components/ui/data-table";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/query-state";
import { LiveNote } from "@/lib/live/live-note";
import { useLive } from "@/lib/live/use-live";
import { useTRPC } from "@/lib/trpc/client";
import { nodeRowList } from "@/server/domain/live/lists";
import type { ClusterNodeRow } from "@/server/services/jobs/cluster";

const columns: ReadonlyArray<Column<ClusterNodeRow>> = [
  { id: "name", header: "Node", cell: (node) => <code>{node.name}</code> },
  {
    id: "health",
    header: "Health",
    cell: (node) => (
      <span className={`badge ${node.healthy ? "badge-ok" : "badge-bad"}`}>
        {node.health}
        {node.ready ? "" : " · NotReady"}
      </span>
    ),
  },
  { id: "used", header: "GPUs used", numeric: true, cell: (node) => node.gpusUsed },
  { id: "free", header: "GPUs free", numeric: true, cell: (node) => Math.max(0, node.gpus - node.gpusUsed) },
  {
    id: "jobs",
    header: "Jobs",
    cell: (node) =>
      node.jobs.length === 0
        ? "—"
        : node.jobs.map((job, index) => (
            <span key={job}>
              {index > 0 ? ", " : ""}
              <Link href={`/jobs/${job}`}>{job.split("/")[1]}</Link>
            </span>
          )),
  },
];

/** The cluster's nodes, kept live by push (cluster.nodesWatch): no polling from the browser. */
export function ClusterNodes() {
  const trpc = useTRPC();
  const nodes = useLive(trpc.cluster.nodesWatch.subscriptionOptions(), nodeRowList.apply);
  if (nodes.data === null) {
    if (nodes.status === "unavailable")
      return <ErrorState title="Could not load nodes" message={nodes.error ?? "the stream ended"} />;
    return <LoadingState label="nodes" />;
  }
  if (nodes.data.length === 0)
    return (
      <>
        <LiveNote status={nodes.status} error={nodes.error} />
        <EmptyState>No nodes.</EmptyState>
      </>
    );
  const gpus = nodes.data.reduce((sum, node) => sum + node.gpus, 0);
  const used = nodes.data.reduce((sum, node) => sum + node.gpusUsed, 0);
  return (
    <section className="card" aria-label="Nodes">
      <LiveNote status={nodes.status} error={nodes.error} />
      <p className="muted">
        {nodes.data.length} nodes · {used} of {gpus} GPUs in use ·{" "}
        {nodes.data.filter((node) => !node.healthy).length} unhealthy
      </p>
      <DataTable label="Nodes" columns={columns} rows={nodes.data} rowKey={(node) => node.name} />
    </section>
  );
}
