/**
 * Where a TV's stream stands: live, reconnecting (the last good frame stays on screen), or ended for good
 * with the server's reason: the token was revoked or does not include this view, or nobody is signed in.
 */
export type TvStreamState =
  | { kind: "connecting" }
  | { kind: "live" }
  | { kind: "reconnecting" }
  | { kind: "ended"; code: "UNAUTHORIZED" | "FORBIDDEN"; message: string };

/** Errors that end a TV's stream for good; any other is retried (a server error, a restart). */
export const isFinalError = (code: string | undefined): code is "UNAUTHORIZED" | "FORBIDDEN" =>
  code === "UNAUTHORIZED" || code === "FORBIDDEN";

/** tRPC's subscription status ("pending" is an open stream) and error, as the screen shows them. */
export function tvStreamState(stream: {
  status: "idle" | "connecting" | "pending" | "error";
  error: { code: string | undefined; message: string } | null;
  hasFrame: boolean;
}): TvStreamState {
  if (stream.status === "error" && isFinalError(stream.error?.code))
    return { kind: "ended", code: stream.error.code, message: stream.error.message };
  if (stream.status === "pending") return { kind: "live" };
  return stream.hasFrame ? { kind: "reconnecting" } : { kind: "connecting" };
}
