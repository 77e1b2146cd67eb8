"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useMemo, useState } from "react";
import { useTRPC } from "@/lib/trpc/client";
import type { QuotaUpdateInput, QuotaView } from "@/server/api/routers/governance/governance.schema";
import { type ServerRefusal, serverRefusal } from "../form-errors";
import { ReviewAndSave } from "../review-and-save";
import { ServerRefusalNotice } from "../server-refusal-notice";
import { QuotaFields } from "./quota-fields";
import { checkDraft, draftOf, type QuotaDraft } from "./quota-model";
import { QuotaResources } from "./quota-resources";

/**
 * The team admin's quota editor: every change is checked with the router's schema as it is typed (the
 * message beside the field); "Review change" asks the server what saving would do (the what-if), and only
 * then can it be saved, with the version it was read at. A stale version is refused naming who changed it.
 */
export function QuotaForm(props: {
  view: QuotaView;
  onReload: () => void;
  onSaved: (version: number) => void;
}) {
  const { view } = props;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<QuotaDraft>(() => draftOf(view));
  const [review, setReview] = useState<QuotaUpdateInput | null>(null);
  const [refusal, setRefusal] = useState<ServerRefusal | null>(null);
  const check = useMemo(() => checkDraft(draft, { team: view.team, version: view.version }), [draft, view]);
  const save = useMutation(
    trpc.governance.quota.update.mutationOptions({
      onSuccess: async (saved) => {
        props.onSaved(saved.version);
        await queryClient.invalidateQueries({ queryKey: trpc.governance.pathKey() });
      },
      onError: (error) => {
        setReview(null);
        setRefusal(serverRefusal(error));
      },
    }),
  );
  const edit = (next: QuotaDraft) => {
    setDraft(next);
    setReview(null);
    // A stale-version refusal stays until reloaded; other refusals were about the draft just changed.
    setRefusal((current) => (current?.code === "CONFLICT" ? current : null));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (check.ok) setReview(check.input);
  };
  const errors = check.ok ? (refusal?.fields ?? {}) : check.errors;
  return (
    <form onSubmit={submit} aria-label={`Quota of ${view.displayName}`} noValidate>
      <QuotaFields draft={draft} errors={errors} onChange={edit} />
      <QuotaResources
        rows={draft.resources}
        errors={errors}
        onChange={(resources) => edit({ ...draft, resources })}
      />
      {refusal ? <ServerRefusalNotice refusal={refusal} onReload={props.onReload} /> : null}
      <ReviewAndSave
        review={review ? { kind: "quota", quota: review } : null}
        canReview={check.ok}
        saving={save.isPending}
        saveLabel="Save quota"
        onSave={() => review && save.mutate(review)}
        onKeepEditing={() => setReview(null)}
      />
    </form>
  );
}
