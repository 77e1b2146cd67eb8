"use client";

import Link from "next/link";

/**
 * A page that failed while rendering: said in the console's frame (the header and navigation stay), with a
 * retry (a render error may be passing: the server restarted, a connection dropped) and the way home.
 */
export default function ErrorPage({
  error,
  reset,
}: {
  error: Error & { digest?: string };
  reset: () => void;
}) {
  return (
    <section className="card error-page" role="alert" aria-labelledby="error-heading">
      <p className="error-code">Error</p>
      <h1 id="error-heading">This page could not be shown</h1>
      <p className="muted">
        {error.message || "Something went wrong while rendering it."}
        {error.digest ? ` (reference ${error.digest})` : ""}
      </p>
      <p className="actions">
        <button type="button" className="button" onClick={reset}>
          Try again
        </button>
        <Link className="button button-secondary" href="/">
          Go to the overview
        </Link>
      </p>
    </section>
  );
}
