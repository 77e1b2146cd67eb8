import styles from "./tv.module.css";

/**
 * A stream that ended for good, said plainly on the screen: the token was revoked (or nobody is signed in),
 * or the token does not include this view. No data stays on screen once access has ended.
 */
export function TvEnded({
  code,
  message,
}: {
  code: "UNAUTHORIZED" | "FORBIDDEN" | "OTHER";
  message: string;
}) {
  const heading =
    code === "UNAUTHORIZED"
      ? "This screen has no access"
      : code === "FORBIDDEN"
        ? "This view is not shared with this screen"
        : "This view could not be opened";
  return (
    <section className={styles.message} role="alert" aria-labelledby="tv-ended">
      <h2 id="tv-ended">{heading}</h2>
      <p>{message.charAt(0).toUpperCase() + message.slice(1)}.</p>
      {code === "UNAUTHORIZED" ? (
        <p>
          Ask a cluster admin for a new TV link, or <a href="/tv/pair">pair this screen with a code</a>.
        </p>
      ) : (
        <p>
          <a href="/tv">See the views this screen may open</a>.
        </p>
      )}
    </section>
  );
}
