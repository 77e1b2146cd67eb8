import { type Column, DataTable } from "@/components/ui/data-table";
import {
  type NodeSignalRule,
  type SignalRead,
  SOURCE_NAMES,
} from "@/server/domain/node-health/signal-table.schema";

type Read<K extends SignalRead["kind"]> = Extract<SignalRead, { kind: K }>;

function describeLabel(read: Read<"label">): string {
  const value = read.valuePrefix ? ` starting with ${read.valuePrefix}` : "";
  const except = read.except?.length ? ` other than ${read.except.join(", ")}` : "";
  return `label ${read.key}${value}${except}`;
}

function describeCondition(read: Read<"condition">): string {
  const reason = read.reason ? `, reason ${read.reason}` : "";
  return `condition ${read.type} ${read.status.join(" or ")}${reason}${read.orAbsent ? " (or absent)" : ""}`;
}

function describeMetric(read: Read<"metric">): string {
  const labels = Object.entries(read.labels ?? {}).map(([key, value]) => `${key}="${value}"`);
  const series = `${read.name}${labels.length ? `{${labels.join(",")}}` : ""}`;
  return `metric ${series} ${read.values ? `= ${read.values.join(" or ")}` : `≥ ${read.atLeast}`}`;
}

/** What a row reads of a Node object, in words. */
export function describeRead(read: SignalRead): string {
  switch (read.kind) {
    case "label":
      return describeLabel(read);
    case "condition":
      return describeCondition(read);
    case "taint":
      return `taint ${read.key}${read.effect ? `:${read.effect}` : ""}`;
    case "cordon":
      return "cordon (spec.unschedulable)";
    case "allocatable-below-capacity":
      return `allocatable ${read.resource} below capacity`;
    case "metric":
      return describeMetric(read);
    default:
      return JSON.stringify(read satisfies never);
  }
}

const columns: ReadonlyArray<Column<NodeSignalRule>> = [
  { id: "id", header: "Row", cell: (rule) => <code>{rule.id}</code> },
  { id: "source", header: "Source", cell: (rule) => SOURCE_NAMES[rule.source] ?? rule.source },
  { id: "read", header: "What is read", cell: (rule) => describeRead(rule.read) },
  { id: "meaning", header: "Meaning", cell: (rule) => rule.meaning },
  { id: "action", header: "Action", cell: (rule) => rule.action },
  {
    id: "grace",
    header: "Grace",
    numeric: true,
    cell: (rule) => (rule.graceSeconds === undefined ? "—" : `${rule.graceSeconds} s`),
  },
];

/** Every row of the node-signal table, in its order. */
export function SignalsTable({ rules }: { rules: readonly NodeSignalRule[] }) {
  return <DataTable label="Node signals" columns={columns} rows={rules} rowKey={(rule) => rule.id} />;
}
