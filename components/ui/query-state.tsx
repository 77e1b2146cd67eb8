import type { ReactNode } from "react";

/** The loading, error and empty states every data view renders explicitly, so none is ever a blank area. */
export function LoadingState({ label }: { label: string }) {
  return (
    <div className="state" role="status" aria-live="polite">
      Loading {label}…
    </div>
  );
}

/**
 * tRPC codes that trying again cannot change: the request itself is refused (bad input, no right to it, not
 * there, too large, a version conflict that needs a re-read first). Anything else (the server or the cluster
 * down, a timeout, the network) may pass on another try.
 */
const PERMANENT = new Set([
  "BAD_REQUEST",
  "UNAUTHORIZED",
  "FORBIDDEN",
  "NOT_FOUND",
  "METHOD_NOT_SUPPORTED",
  "CONFLICT",
  "PRECONDITION_FAILED",
  "PAYLOAD_TOO_LARGE",
  "UNPROCESSABLE_CONTENT",
]);
const PERMANENT_STATUS = new Set([400, 401, 403, 404, 405, 409, 412, 413, 422]);

/** Whether an error (a tRPC client error, or anything else) is one that trying again cannot fix. */
export function isPermanentError(error: unknown): boolean {
  if (typeof error !== "object" || error === null || !("data" in error)) return false;
  const data = (error as { data: unknown }).data;
  if (typeof data !== "object" || data === null) return false;
  const { code, httpStatus } = data as { code?: unknown; httpStatus?: unknown };
  if (typeof code === "string" && PERMANENT.has(code)) return true;
  return typeof httpStatus === "number" && PERMANENT_STATUS.has(httpStatus);
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * A view that could not load: its title and why. `onRetry` offers "Try again" only where another try may
 * help: not when `error` says the request is refused as such (403, 404, 400: nothing a retry changes).
 */
export function ErrorState({
  title,
  error,
  message,
  onRetry,
}: {
  title: string;
  /** The failure itself: its message is shown, and a permanent one gets no retry button. */
  error?: unknown;
  /** The message, for callers that have no error object. */
  message?: string;
  onRetry?: () => void;
}) {
  const text = message ?? (error === undefined ? "unknown error" : messageOf(error));
  const retry = onRetry && !isPermanentError(error) ? onRetry : null;
  return (
    <div className="state" role="alert">
      <p>
        {title}: {text}
      </p>
      {retry ? (
        <button type="button" className="button" onClick={retry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

export function EmptyState({ children }: { children: ReactNode }) {
  return <div className="state">{children}</div>;
}
