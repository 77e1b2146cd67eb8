import { EmptyState } from "@/components/ui/query-state";
import type { ClusterEvent } from "@/server/cluster/types";

/** A run's events, newest first; repeats collapsed into one line show their count. */
export function RunEvents({ events }: { events: readonly ClusterEvent[] }) {
  if (events.length === 0)
    return <EmptyState>No events kept for this run (Kubernetes deletes a job's events with it).</EmptyState>;
  return (
    <ol className="muted">
      {[...events].reverse().map((event) => (
        <li key={`${event.at}-${event.reason}-${event.message}`}>
          <strong className={event.type === "Warning" ? "badge badge-warn" : "badge"}>{event.reason}</strong>{" "}
          {event.message}
          {event.count && event.count > 1 ? ` (×${event.count})` : null}{" "}
          <span>{new Date(event.at).toLocaleString()}</span>
        </li>
      ))}
    </ol>
  );
}
