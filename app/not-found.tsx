import Link from "next/link";

/** Any URL the console has no page for: said in the console's own frame, with the ways back. */
export default function NotFound() {
  return (
    <section className="card error-page" aria-labelledby="not-found-heading">
      <p className="error-code">404</p>
      <h1 id="not-found-heading">Page not found</h1>
      <p className="muted">
        There is no page at this address. It may have moved, or the link may be mistyped.
      </p>
      <p className="actions">
        <Link className="button" href="/">
          Go to the overview
        </Link>
        <Link className="button button-secondary" href="/jobs">
          Jobs
        </Link>
      </p>
    </section>
  );
}
