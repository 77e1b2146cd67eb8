import type { ServerRefusal } from "@/components/governance/form-errors";

/**
 * What the server said when it refused a write. A stale version (CONFLICT) names who changed it first and
 * offers to read it again; anything else shows the message, which names the field and line.
 */
export function RefusalNotice(props: { refusal: ServerRefusal; onReload?: () => void }) {
  const { refusal } = props;
  const conflict = refusal.code === "CONFLICT";
  return (
    <div role="alert" className="form-error">
      <p>
        {conflict ? "Not done, someone changed it first: " : "Not done: "}
        {refusal.message}
      </p>
      {conflict && props.onReload ? (
        <button type="button" className="button" onClick={props.onReload}>
          Reload
        </button>
      ) : null}
    </div>
  );
}
