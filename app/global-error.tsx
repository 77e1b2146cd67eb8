"use client";

import "./globals.css";
import { RenderError } from "@/components/shell/render-error";

/**
 * The root layout itself failed: this replaces it, so it brings its own <html> and the console's styles
 * (globals.css), with a plain link home (the client router may be what failed).
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
          <RenderError
            headingId="global-error-heading"
            title="The console could not be shown"
            error={error}
            reset={reset}
            home={
              <a className="button button-secondary" href="/">
                Go to the overview
              </a>
            }
          />
        </main>
      </body>
    </html>
  );
}
