"use client";

import { useQuery } from "@tanstack/react-query";
import type { LiveStatus } from "@/lib/live/live-state";
import { useLive } from "@/lib/live/use-live";
import { useTRPC } from "@/lib/trpc/client";
import type { JobPage } from "@/server/domain/jobs/pages";
import { applyPatch, type JobPatch } from "@/server/domain/jobs/patch";

export type ConnectionState = "connecting" | "live" | "reconnecting";

/**
 * The job page's indicator from the live view's status: the page has no "unavailable" of its own. With a
 * page on screen, an outage or an ended stream reads "reconnecting" (the last page stays); without one,
 * "connecting" (the page shows the error, if any, in its place).
 */
export function pageState(status: LiveStatus, hasPage: boolean): ConnectionState {
  if (status === "unavailable") return hasPage ? "reconnecting" : "connecting";
  return status;
}

const applyJobPatch = (page: JobPage, patch: JobPatch) => applyPatch(page, patch) ?? page;

/**
 * A job page kept live over one SSE stream (jobs.watch, one server loop per job): its first message is the
 * whole page, then diffs applied in place. While the stream reconnects, or the operator cannot be read, the
 * last good page stays on screen, marked "reconnecting". What the user may do comes from a small query made
 * at the same time.
 */
export function useLiveJob(ref: { namespace: string; name: string }) {
  const trpc = useTRPC();
  const access = useQuery(trpc.jobs.access.queryOptions(ref));
  const live = useLive(trpc.jobs.watch.subscriptionOptions(ref), applyJobPatch);
  const page = live.data;
  const streamError = live.status === "unavailable" && live.error !== null ? new Error(live.error) : null;
  return { page, access, state: pageState(live.status, page !== null), streamError };
}
