"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { type ServerRefusal, serverRefusal } from "@/components/governance/form-errors";
import { useTRPC } from "@/lib/trpc/client";
import type { CreatedShareToken } from "@/server/services/share-tokens/share-tokens.schema";
import { ScopeFields } from "./scope-fields";
import styles from "./share-tokens.module.css";
import { useTokenDraft } from "./use-token-draft";

/** A new TV token: label, views, teams, and how the TV gets it (a link, or a pairing code). */
export function CreateTokenForm(props: { onCreated: (created: CreatedShareToken) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const form = useTokenDraft();
  const teams = useQuery(trpc.teams.list.queryOptions({}));
  const [refusal, setRefusal] = useState<ServerRefusal | null>(null);
  const create = useMutation(
    trpc.shareTokens.create.mutationOptions({
      onSuccess: async (created) => {
        form.reset();
        setRefusal(null);
        props.onCreated(created);
        await queryClient.invalidateQueries({ queryKey: trpc.shareTokens.list.queryKey() });
      },
      onError: (error) => setRefusal(serverRefusal(error)),
    }),
  );
  const errors = { ...refusal?.fields, ...form.errors };
  const labelError = errors.label;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    form.tried();
    if (form.input) create.mutate(form.input);
  };

  return (
    <form className={styles.form} onSubmit={submit} aria-label="New TV token" noValidate>
      <div className={styles.field}>
        <label htmlFor="token-label">Label</label>
        <input
          id="token-label"
          type="text"
          value={form.draft.label}
          placeholder="e.g. Lobby TV, 2nd floor"
          aria-invalid={labelError ? true : undefined}
          aria-describedby={labelError ? "token-label-message" : undefined}
          onChange={(event) => form.setLabel(event.target.value)}
        />
        {labelError ? (
          <span id="token-label-message" className={styles.error}>
            {labelError}
          </span>
        ) : null}
      </div>
      <ScopeFields form={form} teams={teams.data ?? []} />
      <fieldset className={styles.group}>
        <legend>How the TV gets it</legend>
        <label>
          <input
            type="radio"
            name="token-delivery"
            checked={!form.draft.pairing}
            onChange={() => form.setPairing(false)}
          />
          A link to open on the TV
        </label>
        <label>
          <input
            type="radio"
            name="token-delivery"
            checked={form.draft.pairing}
            onChange={() => form.setPairing(true)}
          />
          A pairing code to type at /tv/pair (valid 10 minutes)
        </label>
      </fieldset>
      {refusal && Object.keys(refusal.fields).length === 0 ? (
        <p role="alert" className="form-error">
          Not created: {refusal.message}
        </p>
      ) : null}
      <div>
        <button type="submit" className="button" disabled={create.isPending}>
          {create.isPending ? "Creating…" : "Create token"}
        </button>
      </div>
    </form>
  );
}
