"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useTRPC } from "@/lib/trpc/client";
import styles from "./library.module.css";
import { type SaveRefusal, saveRefusal } from "./save-refusal";

function RefusalNotice({ refusal, onReload }: { refusal: SaveRefusal; onReload: () => void }) {
  return (
    <div role="alert" className="form-error">
      <p>
        {refusal.code === "CONFLICT" ? "Not saved, someone saved a newer version first: " : "Not saved: "}
        {refusal.message}
      </p>
      {refusal.fields.message ? <p>Message: {refusal.fields.message}</p> : null}
      {refusal.problems.length > 0 ? <p>The problems are marked in the editor at their lines.</p> : null}
      {refusal.code === "CONFLICT" ? (
        <button type="button" className="button" onClick={onReload}>
          Reload the latest version
        </button>
      ) : null}
    </div>
  );
}

/**
 * "Save as new version" with a message. The version the draft was based on goes with it: a newer one saved
 * meanwhile is refused (CONFLICT, naming who and when) with a reload; an invalid policy's errors come back
 * to the editor at their lines (onRefused).
 */
export function SaveVersionForm(props: {
  id: string;
  yaml: string;
  baseVersion: number;
  /** Why saving is not possible now (no change, errors in the draft), or null. */
  blocked: string | null;
  /** The version saved and the text it holds (the draft may have moved on while saving). */
  onSaved: (saved: { version: number; yaml: string }) => void;
  onRefused: (refusal: SaveRefusal, yaml: string) => void;
  onReload: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [message, setMessage] = useState("");
  const [refusal, setRefusal] = useState<SaveRefusal | null>(null);
  const save = useMutation(
    trpc.policies.save.mutationOptions({
      onSuccess: async (saved, input) => {
        setRefusal(null);
        setMessage("");
        props.onSaved({ version: saved.version, yaml: input.yaml });
        await queryClient.invalidateQueries({ queryKey: trpc.policies.pathKey() });
      },
      onError: (error, input) => {
        const read = saveRefusal(error);
        setRefusal(read);
        props.onRefused(read, input.yaml);
      },
    }),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (props.blocked !== null) return;
    save.mutate({ id: props.id, yaml: props.yaml, message, baseVersion: props.baseVersion });
  };
  return (
    <form className="stack" onSubmit={submit} aria-label="Save as new version">
      <div className={styles.saveRow}>
        <label>
          What changed and why
          <input
            value={message}
            maxLength={500}
            onChange={(event) => setMessage(event.target.value)}
            placeholder="e.g. hang window 30 s → 60 s: checkpoints take 45 s"
            aria-invalid={refusal?.fields.message ? true : undefined}
          />
        </label>
        <button type="submit" className="button" disabled={props.blocked !== null || save.isPending}>
          {save.isPending ? "Saving…" : "Save as new version"}
        </button>
      </div>
      {props.blocked !== null ? <p className="muted">{props.blocked}</p> : null}
      {refusal !== null ? <RefusalNotice refusal={refusal} onReload={props.onReload} /> : null}
    </form>
  );
}
