import type { ReactNode } from "react";

/**
 * What a failed render says, for app/error.tsx (inside the console's frame) and app/global-error.tsx (which
 * replaces the root layout): the message and its reference, a retry (a render error may be passing: the
 * server restarted, a connection dropped) and the way home, which each caller links its own way.
 */
export function RenderError(props: {
  headingId: string;
  title: string;
  error: Error & { digest?: string };
  reset: () => void;
  home: ReactNode;
}) {
  const { error } = props;
  return (
    <section className="card error-page" role="alert" aria-labelledby={props.headingId}>
      <p className="error-code">Error</p>
      <h1 id={props.headingId}>{props.title}</h1>
      <p className="muted">
        {error.message || "Something went wrong while rendering it."}
        {error.digest ? ` (reference ${error.digest})` : ""}
      </p>
      <p className="actions">
        <button type="button" className="button" onClick={props.reset}>
          Try again
        </button>
        {props.home}
      </p>
    </section>
  );
}
