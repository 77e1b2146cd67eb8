import { TRPCClientError } from "@trpc/client";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ErrorState, isPermanentError } from "./query-state";

/** A tRPC client error as the browser gets it from the console's API. */
const trpcError = (code: string, httpStatus: number) =>
  TRPCClientError.from({
    error: { code: -32_600, message: `refused (${code})`, data: { code, httpStatus } },
  });

const markup = (error: unknown) =>
  renderToStaticMarkup(<ErrorState title="Could not load the audit log" error={error} onRetry={() => {}} />);

describe("error states", () => {
  it("offers no Try again on a 403, 404 or 400: another try gets the same answer", () => {
    for (const [code, status] of [
      ["FORBIDDEN", 403],
      ["NOT_FOUND", 404],
      ["BAD_REQUEST", 400],
      ["UNAUTHORIZED", 401],
    ] as const) {
      expect(isPermanentError(trpcError(code, status))).toBe(true);
      const html = markup(trpcError(code, status));
      expect(html).toContain(`Could not load the audit log: refused (${code})`);
      expect(html).not.toContain("Try again");
    }
  });

  it("offers Try again where another try may pass: the server or cluster down, the network", () => {
    for (const error of [
      trpcError("INTERNAL_SERVER_ERROR", 500),
      trpcError("SERVICE_UNAVAILABLE", 503),
      trpcError("TIMEOUT", 408),
      new TypeError("Failed to fetch"),
    ]) {
      expect(isPermanentError(error)).toBe(false);
      expect(markup(error)).toContain("Try again");
    }
  });

  it("keeps a message given as text, with its retry", () => {
    const html = renderToStaticMarkup(
      <ErrorState title="Could not load jobs" message="the stream ended" onRetry={() => {}} />,
    );
    expect(html).toContain("Could not load jobs: the stream ended");
    expect(html).toContain("Try again");
  });
});
