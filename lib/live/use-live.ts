"use client";

import { useSubscription } from "@trpc/tanstack-react-query";
import { useState } from "react";
import type { LiveMessage } from "@/server/services/live/hub";
import { initialLive, type LiveStatus, type LiveValue, liveStatus, reduceLive } from "./live-state";

type SubscriptionOptions<T, P, E> = Parameters<typeof useSubscription<LiveMessage<T, P>, E>>[0];

export type Live<T> = {
  /** The last good value: kept while the stream reconnects or the server says its source is down. */
  data: T | null;
  status: LiveStatus;
  /** Why the view is not live: the server's word on its source, or the stream's error. */
  error: string | null;
};

/**
 * A live view over a tRPC subscription of hub messages (server/services/live/hub.ts): the first message of
 * every connection is the value whole, then patches applied with `apply`. No polling: the server pushes.
 *
 *   const jobs = useLive(trpc.jobs.listWatch.subscriptionOptions(), jobRowList.apply);
 *
 * A new input (another rank's log) starts from nothing rather than showing the previous input's value.
 */
export function useLive<T, P, E extends { message: string }>(
  options: SubscriptionOptions<T, P, E>,
  apply: (value: T, patch: P) => T,
): Live<T> {
  const key = JSON.stringify(options.queryKey);
  const [held, setHeld] = useState<{ key: string; live: LiveValue<T> }>(() => ({ key, live: initialLive() }));
  const current = held.key === key ? held.live : initialLive<T>();
  // Only status and error are read from the subscription, so it re-renders the view on connection changes;
  // the messages re-render it through `held`.
  const stream = useSubscription({
    ...options,
    onData: (message: LiveMessage<T, P>) => {
      options.onData?.(message);
      setHeld((previous) => ({
        key,
        live: reduceLive(previous.key === key ? previous.live : initialLive<T>(), message, apply),
      }));
    },
  });
  return {
    data: current.value,
    status: liveStatus(stream.status, current),
    error: current.unavailable ?? stream.error?.message ?? null,
  };
}
