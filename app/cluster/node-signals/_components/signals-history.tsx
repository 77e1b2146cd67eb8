import { EmptyState } from "@/components/ui/query-state";

type Entry = { id: string; at: Date; actor: { name: string } | null; action: string };

const ACTIONS: Record<string, string> = {
  "nodeSignals.update": "edited the table",
  "nodeSignals.cordon": "set the cordon toggle",
  "nodeSignals.reset": "reset to the shipped defaults",
};

/** The table's latest audited changes, newest first. */
export function SignalsHistory({ entries }: { entries: readonly Entry[] }) {
  if (entries.length === 0) return <EmptyState>No changes yet: the shipped table is in force.</EmptyState>;
  return (
    <ul aria-label="Recent node-signal changes">
      {entries.map((entry) => (
        <li key={entry.id}>
          {entry.at.toISOString().slice(0, 16).replace("T", " ")} UTC · {entry.actor?.name ?? "someone"}{" "}
          {ACTIONS[entry.action] ?? entry.action}
        </li>
      ))}
    </ul>
  );
}
