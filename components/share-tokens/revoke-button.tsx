"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/lib/trpc/client";
import styles from "./share-tokens.module.css";

/** Revoke, after a confirmation that says what it does. */
export function RevokeButton(props: { id: string; label: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const revoke = useMutation(
    trpc.shareTokens.revoke.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.shareTokens.list.queryKey() }),
    }),
  );
  if (!confirming)
    return (
      <button
        type="button"
        className="button button-secondary"
        aria-label={`Revoke ${props.label}`}
        onClick={() => setConfirming(true)}
      >
        Revoke
      </button>
    );
  return (
    <fieldset className={styles.confirm}>
      <legend className="sr-only">Confirm revoking {props.label}</legend>
      <span>Screens using it stop within seconds. Revoke?</span>
      <button
        type="button"
        className="button button-danger"
        disabled={revoke.isPending}
        onClick={() => revoke.mutate({ id: props.id })}
      >
        Yes, revoke {props.label}
      </button>
      <button type="button" className="button button-secondary" onClick={() => setConfirming(false)}>
        Cancel
      </button>
      {revoke.isError ? (
        <span role="alert" className={styles.error}>
          Not revoked: {revoke.error.message}
        </span>
      ) : null}
    </fieldset>
  );
}
