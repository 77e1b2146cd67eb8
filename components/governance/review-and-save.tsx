"use client";

import type { WhatIfInput } from "@/server/api/routers/governance/governance.schema";
import { WhatIfPanel } from "./what-if-panel";

/**
 * The end of a governance form: "Review change" (enabled once the draft passes the schema) shows the
 * server's what-if, and only then can the change be saved, or edited further.
 */
export function ReviewAndSave(props: {
  /** The change under review (null: still editing). */
  review: WhatIfInput | null;
  canReview: boolean;
  saving: boolean;
  saveLabel: string;
  onSave: () => void;
  onKeepEditing: () => void;
}) {
  if (!props.review)
    return (
      <p>
        <button type="submit" className="button" disabled={!props.canReview}>
          Review change
        </button>
      </p>
    );
  return (
    <WhatIfPanel input={props.review}>
      <button type="button" className="button" disabled={props.saving} onClick={props.onSave}>
        {props.saving ? "Saving…" : props.saveLabel}
      </button>
      <button type="button" className="button button-secondary" onClick={props.onKeepEditing}>
        Keep editing
      </button>
    </WhatIfPanel>
  );
}
