"use client";

import { type FormEvent, useState } from "react";
import { type FieldErrors, type ServerRefusal, serverRefusal } from "./form-errors";

type Check<Input> = { ok: true; input: Input } | { ok: false; errors: FieldErrors };

/**
 * A governance form's editing state: the draft, checked as typed (`check`, the router's schema); the input
 * under review (what-if shown, not yet saved); the server's last refusal. Editing ends a review; a stale-version
 * refusal stays until reloaded, other refusals were about the draft just changed.
 */
export function useReviewedDraft<Draft, Input>(
  initial: () => Draft,
  checkOf: (draft: Draft) => Check<Input>,
) {
  const [draft, setDraft] = useState<Draft>(initial);
  const [review, setReview] = useState<Input | null>(null);
  const [refusal, setRefusal] = useState<ServerRefusal | null>(null);
  const check = checkOf(draft);
  return {
    draft,
    check,
    review,
    refusal,
    /** Messages per field: the schema's while the draft is invalid, else the server's refusal's. */
    errors: check.ok ? (refusal?.fields ?? {}) : check.errors,
    edit(next: Draft) {
      setDraft(next);
      setReview(null);
      setRefusal((current) => (current?.code === "CONFLICT" ? current : null));
    },
    submit(event: FormEvent) {
      event.preventDefault();
      if (check.ok) setReview(check.input);
    },
    keepEditing: () => setReview(null),
    /** The save was refused: back to editing, with the server's message. */
    refused(error: unknown) {
      setReview(null);
      setRefusal(serverRefusal(error));
    },
  };
}
