"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useMemo, useState } from "react";
import { useTRPC } from "@/lib/trpc/client";
import type { SchedulerUpdateInput, SchedulerView } from "@/server/api/routers/governance/governance.schema";
import { type ServerRefusal, serverRefusal } from "../form-errors";
import styles from "../governance.module.css";
import { ReviewAndSave } from "../review-and-save";
import { ServerRefusalNotice } from "../server-refusal-notice";
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
  const [draft, setDraft] = useState<SchedulerDraft>(() => schedulerDraftOf(view));
  const [review, setReview] = useState<SchedulerUpdateInput | null>(null);
  const [refusal, setRefusal] = useState<ServerRefusal | null>(null);
  const check = useMemo(() => checkSchedulerDraft(draft, view.version), [draft, view.version]);
  const save = useMutation(
    trpc.governance.scheduler.update.mutationOptions({
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
  const edit = (next: SchedulerDraft) => {
    setDraft(next);
    setReview(null);
    setRefusal((current) => (current?.code === "CONFLICT" ? current : null));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (check.ok) setReview(check.input);
  };
  const errors = check.ok ? (refusal?.fields ?? {}) : check.errors;
  return (
    <form onSubmit={submit} aria-label="Scheduler configuration" noValidate>
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
        canReview={check.ok}
        saving={save.isPending}
        saveLabel="Save scheduler config"
        onSave={() => review && save.mutate(review)}
        onKeepEditing={() => setReview(null)}
      />
    </form>
  );
}
