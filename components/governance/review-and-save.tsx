"use client";

import { useState } from "react";
import type { WhatIfInput, WhatIfView } from "@/server/services/governance/governance.schema";
import { WhatIfPanel } from "./what-if-panel";

/** Whether the what-if says saving needs the explicit over-commit choice (over, or not known). */
const needsChoice = (view: WhatIfView | null): boolean => view !== null && view.overcommit.state !== "fits";

/**
 * The end of a governance form: "Review change" (enabled once the draft passes the schema) shows the
 * server's what-if, and only then can the change be saved, or edited further. A quota raise that
 * over-commits the cluster's GPUs (or that cannot be checked) saves only once the admin ticks "Allow
 * over-commit"; `onSave` gets that choice, sent as the update's `allowOvercommit`.
 */
export function ReviewAndSave(props: {
  /** The change under review (null: still editing). */
  review: WhatIfInput | null;
  canReview: boolean;
  saving: boolean;
  saveLabel: string;
  onSave: (allowOvercommit: boolean) => void;
  onKeepEditing: () => void;
}) {
  const [allow, setAllow] = useState(false);
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
      {(view) => {
        const choice = needsChoice(view);
        return (
          <>
            {choice ? (
              <label>
                <input type="checkbox" checked={allow} onChange={(event) => setAllow(event.target.checked)} />{" "}
                Allow over-commit: guarantee more GPUs than the cluster has
              </label>
            ) : null}
            <button
              type="button"
              className="button"
              disabled={props.saving || (choice && !allow)}
              onClick={() => props.onSave(choice && allow)}
            >
              {props.saving ? "Saving…" : props.saveLabel}
            </button>
            <button
              type="button"
              className="button button-secondary"
              onClick={() => {
                setAllow(false);
                props.onKeepEditing();
              }}
            >
              Keep editing
            </button>
          </>
        );
      }}
    </WhatIfPanel>
  );
}
