import type { ServerRefusal } from "./form-errors";

/**
 * What the server said when it refused a save. A stale version (CONFLICT) names who changed it and offers
 * a reload; anything else shows the message (its field messages also appear beside the fields).
 */
export function ServerRefusalNotice(props: { refusal: ServerRefusal; onReload: () => void }) {
  const { refusal } = props;
  return (
    <div role="alert" className="form-error">
      <p>
        {refusal.code === "CONFLICT" ? "Not saved, someone changed it first: " : "Not saved: "}
        {refusal.message}
      </p>
      {refusal.code === "CONFLICT" ? (
        <button type="button" className="button" onClick={props.onReload}>
          Reload their version
        </button>
      ) : null}
    </div>
  );
}
