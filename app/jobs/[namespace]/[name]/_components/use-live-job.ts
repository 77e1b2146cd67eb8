"use client";

import { useQuery } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useEffect, useState } from "react";
import { applyPatch } from "@/lib/jobs/patch";
import { useTRPC } from "@/lib/trpc/client";
import type { JobPage } from "@/server/services/jobs/queries";

export type LiveState = "connecting" | "live" | "reconnecting";

/**
 * A job page kept live: the first load over HTTP, then the SSE stream's diffs applied in place. While the
 * stream reconnects the last good page stays on screen, marked "reconnecting".
 */
export function useLiveJob(ref: { namespace: string; name: string }) {
  const trpc = useTRPC();
  const initial = useQuery(trpc.jobs.page.queryOptions(ref));
  const [page, setPage] = useState<JobPage | null>(null);
  useEffect(() => {
    if (initial.data) setPage((current) => current ?? initial.data.page);
  }, [initial.data]);
  const stream = useSubscription(
    trpc.jobs.watch.subscriptionOptions(ref, {
      onData: (patch) => setPage((current) => applyPatch(current, patch) ?? current),
    }),
  );
  const state: LiveState =
    stream.status === "pending" ? "live" : page === null ? "connecting" : "reconnecting";
  return { page, initial, state, streamError: stream.error };
}
