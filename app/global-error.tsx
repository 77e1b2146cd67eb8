"use client";

import "./globals.css";

/**
 * The root layout itself failed: this replaces it, so it brings its own <html> and the console's styles
 * (globals.css), with a retry and a plain link home (the client router may be what failed).
 */
export default function GlobalError({
  error,
  reset,
}: {
  error: Error & { digest?: string };
  reset: () => void;
}) {
  return (
    <html lang="en">
      <body>
        <main className="shell-main">
          <section className="card error-page" role="alert" aria-labelledby="global-error-heading">
            <p className="error-code">Error</p>
            <h1 id="global-error-heading">The console could not be shown</h1>
            <p className="muted">
              {error.message || "Something went wrong while rendering it."}
              {error.digest ? ` (reference ${error.digest})` : ""}
            </p>
            <p className="actions">
              <button type="button" className="button" onClick={reset}>
                Try again
              </button>
              <a className="button button-secondary" href="/">
                Go to the overview
              </a>
            </p>
          </section>
        </main>
      </body>
    </html>
  );
}
