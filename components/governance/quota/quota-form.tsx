"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/lib/trpc/client";
import type { QuotaUpdateInput, QuotaView } from "@/server/services/governance/governance.schema";
import { ReviewAndSave } from "../review-and-save";
import { ServerRefusalNotice } from "../server-refusal-notice";
import { useReviewedDraft } from "../use-reviewed-draft";
import { QuotaAdvanced } from "./quota-advanced";
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
  const form = useReviewedDraft<QuotaDraft, QuotaUpdateInput>(
    () => draftOf(view),
    (next) => checkDraft(next, { team: view.team, version: view.version }),
  );
  const { draft, review, refusal, errors, edit } = form;
  const save = useMutation(
    trpc.governance.quota.update.mutationOptions({
      onSuccess: async (saved) => {
        props.onSaved(saved.version);
        await queryClient.invalidateQueries({ queryKey: trpc.governance.pathKey() });
      },
      onError: form.refused,
    }),
  );
  return (
    <form onSubmit={form.submit} aria-label={`Quota of ${view.displayName}`} noValidate>
      <QuotaFields draft={draft} errors={errors} onChange={edit} />
      <QuotaResources
        rows={draft.resources}
        errors={errors}
        onChange={(resources) => edit({ ...draft, resources })}
      />
      <QuotaAdvanced draft={draft.kueue} errors={errors} onChange={(kueue) => edit({ ...draft, kueue })} />
      {refusal ? <ServerRefusalNotice refusal={refusal} onReload={props.onReload} /> : null}
      <ReviewAndSave
        review={review ? { kind: "quota", quota: review } : null}
        canReview={form.check.ok}
        saving={save.isPending}
        saveLabel="Save quota"
        onSave={(allowOvercommit) =>
          review && save.mutate(allowOvercommit ? { ...review, allowOvercommit } : review)
        }
        onKeepEditing={form.keepEditing}
      />
    </form>
  );
}
