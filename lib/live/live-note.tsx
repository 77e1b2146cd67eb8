import type { LiveStatus } from "./live-state";

/**
 * The small note a live view shows while its stream is down, above the last rows it received (which stay):
 * nothing while live or still connecting (the view shows its loading state then).
 */
export function LiveNote(props: { status: LiveStatus; error: string | null }) {
  if (props.status === "live" || props.status === "connecting") return null;
  return (
    <p className="live-status" role="status" data-state={props.status}>
      {props.status === "reconnecting"
        ? "Reconnecting… (showing the last data received)"
        : `Live updates unavailable${props.error ? `: ${props.error}` : ""} (showing the last data received)`}
    </p>
  );
}
