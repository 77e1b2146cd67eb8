import type { LiveMessage } from "@/server/services/live/hub";

/**
 * What a live view shows, from the stream's messages (server/services/live/hub.ts) and its connection:
 * pure, so the hook (use-live.ts) stays a thin wrapper and this is unit-tested.
 */
export type LiveStatus = "connecting" | "live" | "reconnecting" | "unavailable";

/** The last good value (kept through outages and reconnections) and the server's word on the source. */
export type LiveValue<T> = { value: T | null; unavailable: string | null };

export const initialLive = <T>(): LiveValue<T> => ({ value: null, unavailable: null });

/** Applies one message: a snapshot replaces, a patch applies to what is held, an outage keeps the value. */
export function reduceLive<T, P>(
  state: LiveValue<T>,
  message: LiveMessage<T, P>,
  apply: (value: T, patch: P) => T,
): LiveValue<T> {
  switch (message.kind) {
    case "snapshot":
      return { value: message.value, unavailable: null };
    case "patch":
      // A patch before any snapshot has nothing to apply to (each connection starts with a snapshot).
      return state.value === null ? state : { value: apply(state.value, message.patch), unavailable: null };
    case "unavailable":
      return { value: state.value, unavailable: message.message };
    default:
      return message satisfies never;
  }
}

/** tRPC's subscription states: "pending" is an open stream; "connecting" a first try or a reconnection. */
export type StreamStatus = "idle" | "connecting" | "pending" | "error";

/**
 * "live" only on an open stream whose source answers; "unavailable" when the server says the source is down
 * or the stream ended for good (an error it will not retry); a dropped stream is "reconnecting" once there
 * is a value to keep showing, "connecting" before.
 */
export function liveStatus(stream: StreamStatus, state: LiveValue<unknown>): LiveStatus {
  if (stream === "error") return "unavailable";
  if (stream === "pending") {
    if (state.unavailable !== null) return "unavailable";
    return state.value === null ? "connecting" : "live";
  }
  return state.value === null ? "connecting" : "reconnecting";
}
