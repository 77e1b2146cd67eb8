"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/lib/trpc/client";
import type { SchedulerUpdateInput, SchedulerView } from "@/server/services/governance/governance.schema";
import styles from "../governance.module.css";
import { ReviewAndSave } from "../review-and-save";
import { ServerRefusalNotice } from "../server-refusal-notice";
import { useReviewedDraft } from "../use-reviewed-draft";
import { PriorityClassesFields } from "./priority-classes-fields";
import { checkSchedulerDraft, type SchedulerDraft, schedulerDraftOf } from "./scheduler-model";

type Toggle = "taskRanking" | "fairShare" | "idleResourceSharing";
const TOGGLES: ReadonlyArray<{ key: Toggle; label: string }> = [
  { key: "taskRanking", label: "Task ranking by priority class (off: first come, first served)" },
  { key: "fairShare", label: "Fair share of idle compute by team weights (off: first come, first served)" },
  { key: "idleResourceSharing", label: "Share unallocated capacity (no team's guarantee) for borrowing" },
];

/** The cluster admin's scheduler config editor: checked as typed, what-if before saving, versioned. */
export function SchedulerForm(props: {
  view: SchedulerView;
  onReload: () => void;
  onSaved: (version: number) => void;
}) {
  const { view } = props;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const form = useReviewedDraft<SchedulerDraft, SchedulerUpdateInput>(
    () => schedulerDraftOf(view),
    (next) => checkSchedulerDraft(next, view.version),
  );
  const { draft, review, refusal, errors, edit } = form;
  const save = useMutation(
    trpc.governance.scheduler.update.mutationOptions({
      onSuccess: async (saved) => {
        props.onSaved(saved.version);
        await queryClient.invalidateQueries({ queryKey: trpc.governance.pathKey() });
      },
      onError: form.refused,
    }),
  );
  return (
    <form onSubmit={form.submit} aria-label="Scheduler configuration" noValidate>
      <fieldset className={styles.checks}>
        <legend>Policies</legend>
        {TOGGLES.map(({ key, label }) => (
          <label key={key}>
            <input
              type="checkbox"
              checked={draft[key]}
              onChange={(event) => edit({ ...draft, [key]: event.target.checked })}
            />
            {label}
          </label>
        ))}
      </fieldset>
      <PriorityClassesFields
        rows={draft.priorityClasses}
        errors={errors}
        onChange={(priorityClasses) => edit({ ...draft, priorityClasses })}
      />
      {refusal ? <ServerRefusalNotice refusal={refusal} onReload={props.onReload} /> : null}
      <ReviewAndSave
        review={review ? { kind: "scheduler", scheduler: review } : null}
        canReview={form.check.ok}
        saving={save.isPending}
        saveLabel="Save scheduler config"
        onSave={() => review && save.mutate(review)}
        onKeepEditing={form.keepEditing}
      />
    </form>
  );
}
