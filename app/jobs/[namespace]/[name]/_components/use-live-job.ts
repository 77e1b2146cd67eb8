"use client";

import { useQuery } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useState } from "react";
import { applyPatch } from "@/lib/jobs/patch";
import { useTRPC } from "@/lib/trpc/client";
import type { JobPage } from "@/server/services/jobs/queries";

export type LiveState = "connecting" | "live" | "reconnecting";

/**
 * A job page kept live over one SSE stream: its first message is the whole page, then diffs applied in
 * place. While the stream reconnects the last good page stays on screen, marked "reconnecting". What the
 * user may do comes from a small query made at the same time.
 */
export function useLiveJob(ref: { namespace: string; name: string }) {
  const trpc = useTRPC();
  const access = useQuery(trpc.jobs.access.queryOptions(ref));
  const [page, setPage] = useState<JobPage | null>(null);
  const stream = useSubscription(
    trpc.jobs.watch.subscriptionOptions(ref, {
      onData: (patch) => setPage((current) => applyPatch(current, patch) ?? current),
    }),
  );
  const state: LiveState =
    stream.status === "pending" ? "live" : page === null ? "connecting" : "reconnecting";
  return { page, access, state, streamError: stream.error };
}
