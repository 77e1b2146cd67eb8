"use client";

import { useQuery } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useState } from "react";
import { useTRPC } from "@/lib/trpc/client";
import { applyPatch } from "@/server/domain/jobs/patch";
import type { JobPage } from "@/server/services/jobs/queries";

export type LiveState = "connecting" | "live" | "reconnecting";

/**
 * The stream's state as the page shows it: tRPC reports "pending" while a stream is open; anything else
 * ("connecting" after a drop, "error", "idle") before the first page is "connecting", after it
 * "reconnecting" (the last page stays on screen).
 */
export function liveState(status: "idle" | "connecting" | "pending" | "error", hasPage: boolean): LiveState {
  if (status === "pending") return "live";
  return hasPage ? "reconnecting" : "connecting";
}

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
  const state = liveState(stream.status, page !== null);
  return { page, access, state, streamError: stream.error };
}
