"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { LiveNote } from "@/lib/live/live-note";
import { useLive } from "@/lib/live/use-live";
import { useTRPC } from "@/lib/trpc/client";
import type { GovernanceRevision } from "@/server/services/live/governance-streams";
import { type StaleQuery, staleQueries } from "./governance-revision";

const replace = (_: GovernanceRevision, next: GovernanceRevision) => next;

/**
 * Keeps the governance pages current without a Refresh button: the server pushes a revision of what the
 * user reads (`governance.watch`), and the views of the part that moved (audit, queues, capacity) fetch again.
 * Shows a note only while the push is down.
 */
export function GovernanceLive() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const live = useLive(trpc.governance.watch.subscriptionOptions(), replace);
  const seen = useRef<GovernanceRevision | null>(null);
  useEffect(() => {
    if (live.data === null) return;
    const stale = staleQueries(seen.current, live.data);
    seen.current = live.data;
    const keys = {
      audit: trpc.governance.audit.pathKey(),
      overview: trpc.governance.overview.pathKey(),
      members: trpc.governance.members.pathKey(),
      queue: trpc.governance.queue.pathKey(),
      whyPending: trpc.governance.whyPending.pathKey(),
      capacityHistory: trpc.governance.capacityHistory.pathKey(),
    } satisfies Record<StaleQuery, unknown>;
    for (const name of stale) void queryClient.invalidateQueries({ queryKey: keys[name] });
  }, [live.data, queryClient, trpc]);
  return <LiveNote status={live.status} error={live.error} />;
}
