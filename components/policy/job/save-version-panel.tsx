"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { serverRefusal } from "@/components/governance/form-errors";
import { useTRPC } from "@/lib/trpc/client";
import styles from "./policy.module.css";
import { RefusalNotice } from "./refusal-notice";
import type { JobRef, LibraryPolicy, VersionChoice } from "./types";
import { useSaveVersion } from "./use-save-version";

const NEW = "new";

/** The policy a save goes to by default: the job's own `<job>-policy` when the team has one. */
function defaultChoice(policies: readonly LibraryPolicy[], ownName: string): string {
  return policies.find((policy) => policy.name === ownName && policy.canEdit)?.id ?? NEW;
}

/**
 * "Save as new version": the draft goes into the team's library, as the next version of a policy picked
 * from the team's (the job's own `<job>-policy` by default), or as version 1 of `<job>-policy` when the team
 * has none. The server parses it again and refuses it with the errors at their lines; a save over a newer
 * version is refused naming who saved it.
 */
export function SaveVersionPanel(props: {
  job: JobRef;
  teamId: string;
  yaml: string;
  canSave: boolean;
  onSaved: (saved: VersionChoice) => void;
}) {
  const trpc = useTRPC();
  const ownName = `${props.job.name}-policy`;
  const list = useQuery(trpc.policies.list.queryOptions({ teamId: props.teamId }));
  const [picked, setPicked] = useState<string | null>(null);
  const [message, setMessage] = useState("");
  const [saved, setSaved] = useState<VersionChoice | null>(null);
  const editable = (list.data ?? []).filter((policy) => policy.canEdit);
  const target = picked ?? defaultChoice(editable, ownName);
  const saving = useSaveVersion({
    teamId: props.teamId,
    newName: ownName,
    onSaved: (version) => {
      setPicked(version.policyId);
      setMessage("");
      setSaved(version);
      props.onSaved(version);
    },
  });
  const submit = () => {
    setSaved(null);
    saving.submit({
      target: editable.find((policy) => policy.id === target) ?? null,
      yaml: props.yaml,
      message,
    });
  };

  return (
    <section className="card" aria-labelledby="save-version-heading">
      <h2 id="save-version-heading">Save to the team's library</h2>
      {list.isError ? <p role="alert">Could not list the team's policies: {list.error.message}</p> : null}
      <div className={styles.fields}>
        <div className={styles.field}>
          <label htmlFor="save-policy-target">Policy</label>
          <select
            id="save-policy-target"
            value={target}
            onChange={(event) => setPicked(event.target.value)}
            disabled={list.isPending}
          >
            {editable.map((policy) => (
              <option key={policy.id} value={policy.id}>
                {policy.name} (v{policy.latest.version})
              </option>
            ))}
            {editable.some((policy) => policy.name === ownName) ? null : (
              <option value={NEW}>New policy: {ownName}</option>
            )}
          </select>
        </div>
        <label className={styles.field}>
          Message
          <input
            type="text"
            value={message}
            maxLength={500}
            placeholder="what changed and why"
            onChange={(event) => setMessage(event.target.value)}
          />
        </label>
      </div>
      <div className={styles.toolbar}>
        <button
          type="button"
          className="button"
          disabled={!props.canSave || saving.pending || list.isPending}
          onClick={submit}
        >
          {saving.pending ? "Saving…" : "Save as new version"}
        </button>
        {props.canSave ? null : <span className="muted">Fix the problems above first.</span>}
      </div>
      {saved ? (
        <p role="status" className="muted">
          Saved {saved.name} v{saved.version}.
        </p>
      ) : null}
      {saving.error ? (
        <RefusalNotice refusal={serverRefusal(saving.error)} onReload={() => list.refetch()} />
      ) : null}
    </section>
  );
}
