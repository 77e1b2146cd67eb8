import type { ChannelKind } from "./notifications.schema";

/** How one delivery is tried: a timeout per request, then bounded retries with exponential back-off. */
export type RetryPolicy = { timeoutMs: number; maxAttempts: number; baseDelayMs: number; maxDelayMs: number };

export const DEFAULT_RETRY: RetryPolicy = {
  timeoutMs: 10_000,
  maxAttempts: 6,
  baseDelayMs: 30_000,
  maxDelayMs: 30 * 60_000,
};

/** The wait before attempt `attempts + 1`: base · 2^(attempts − 1), at most maxDelayMs. */
export function retryDelayMs(policy: RetryPolicy, attempts: number): number {
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempts - 1));
}

export type PostResult = { ok: boolean; responseCode: number | null; error: string | null };

/**
 * POSTs the body as JSON. Success: any 2xx for Alertmanager's format; for Slack, 200 with the plain-text
 * body `ok` (Slack answers its refusals, such as `invalid_payload`, in the body).
 */
export async function postWebhook(
  kind: ChannelKind,
  url: string,
  body: unknown,
  timeoutMs: number,
): Promise<PostResult> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "rebound-notifications" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "error",
    });
  } catch (error) {
    const timedOut = error instanceof DOMException && error.name === "TimeoutError";
    const message = timedOut ? `no answer within ${timeoutMs} ms` : errorText(error);
    return { ok: false, responseCode: null, error: message };
  }
  const text = (await response.text().catch(() => "")).slice(0, 500);
  const ok = kind === "slack" ? response.status === 200 && text.trim() === "ok" : response.ok;
  return {
    ok,
    responseCode: response.status,
    error: ok ? null : `HTTP ${response.status}${text ? `: ${text.trim()}` : ""}`,
  };
}

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
}
