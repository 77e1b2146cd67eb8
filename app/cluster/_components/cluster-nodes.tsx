"use client";

import Link from "next/link";
import { type Column, DataTable } from "@/components/ui/data-table";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/query-state";
import { LiveNote } from "@/lib/live/live-note";
import { useLive } from "@/lib/live/use-live";
import { useTRPC } from "@/lib/trpc/client";
import type { ClusterNodeRow, NodeVerdictRow } from "@/server/domain/jobs/pages";
import { nodeRowList } from "@/server/domain/live/lists";
import {
  type NodeAction,
  type NodeMeaning,
  SOURCE_NAMES,
} from "@/server/domain/node-health/signal-table.schema";

const ACTION_TEXT: Record<NodeAction, string> = {
  "replace-now": "its pods are replaced now",
  "replace-after-grace": "its pods are replaced after a grace period",
  avoid: "new pods avoid it",
  none: "",
};

const MEANING_TEXT: Record<NodeMeaning, string> = {
  unusable: "Unusable",
  degraded: "Degraded",
  maintenance: "Maintenance",
  healthy: "Schedulable",
};

/** HyperPod's label, or where it still says Schedulable while another signal does not, that signal's meaning. */
function healthText(node: ClusterNodeRow): string {
  const meaning = node.verdict?.meaning;
  return meaning && meaning !== "healthy" && node.health === "Schedulable"
    ? MEANING_TEXT[meaning]
    : node.health;
}

/** Unusable red; degraded or in maintenance (new pods avoid it, its pods stay) amber. */
function badgeClass(node: ClusterNodeRow): string {
  if (node.healthy) return "badge-ok";
  return node.verdict?.action === "avoid" ? "badge-warn" : "badge-bad";
}

/** Who says what of the node: "NVSentinel: GpuMemWatch — ErrorCode:… · its pods are replaced now". */
function NodeSignal({ verdict }: { verdict: NodeVerdictRow | null }) {
  if (!verdict?.reason || verdict.action === "none") return "—";
  const name = verdict.source ? SOURCE_NAMES[verdict.source] : null;
  const detail =
    name && verdict.reason.startsWith(`${name}: `) ? verdict.reason.slice(name.length + 2) : null;
  return (
    <span data-testid="node-signal">
      {name && detail !== null ? (
        <>
          <strong>{name}</strong>: {detail}
        </>
      ) : (
        verdict.reason
      )}
      <span className="muted">
        {" "}
        · {verdict.meaning}, {ACTION_TEXT[verdict.action]}
      </span>
    </span>
  );
}

const columns: ReadonlyArray<Column<ClusterNodeRow>> = [
  { id: "name", header: "Node", cell: (node) => <code>{node.name}</code> },
  {
    id: "health",
    header: "Health",
    cell: (node) => (
      <span className={`badge ${badgeClass(node)}`}>
        {healthText(node)}
        {node.ready ? "" : " · NotReady"}
      </span>
    ),
  },
  { id: "signal", header: "Signal", cell: (node) => <NodeSignal verdict={node.verdict} /> },
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

/**
 * The cluster's nodes, kept live by push (cluster.nodesWatch): no polling from the browser. Each node's
 * health with the source and reason of the node-signal table's verdict, where the operator judged it.
 */
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
