"use client";

import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { serverRefusal } from "@/components/governance/form-errors";
import { useTRPC } from "@/lib/trpc/client";
import { pairShareTokenInputSchema } from "@/server/services/share-tokens/share-tokens.schema";
import styles from "./share-tokens.module.css";

/**
 * /tv/pair: the TV's side of pairing. The code a cluster admin created is typed here; the answer sets the
 * share cookie and the screen opens its first view.
 */
export function PairForm() {
  const trpc = useTRPC();
  const [code, setCode] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const pair = useMutation(
    trpc.shareTokens.pair.mutationOptions({
      onSuccess: (paired) => window.location.assign(paired.path),
      onError: (error) => {
        const refusal = serverRefusal(error);
        setProblem(refusal.fields.code ?? refusal.message);
      },
    }),
  );

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = pairShareTokenInputSchema.safeParse({ code });
    if (!parsed.success) {
      setProblem(parsed.error.issues[0]?.message ?? "expected a pairing code");
      return;
    }
    setProblem(null);
    pair.mutate({ code });
  };

  return (
    <div className={styles.pair}>
      <h1>Pair this screen</h1>
      <p>A cluster admin creates a pairing code in the console (Governance, TV tokens). Type it here.</p>
      <form onSubmit={submit} noValidate>
        <label htmlFor="pairing-code">
          Pairing code
          <input
            id="pairing-code"
            type="text"
            autoComplete="off"
            autoCapitalize="characters"
            spellCheck={false}
            maxLength={32}
            placeholder="ABCD-EFGH"
            value={code}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? "pairing-code-message" : undefined}
            onChange={(event) => setCode(event.target.value)}
          />
        </label>
        {problem ? (
          <p id="pairing-code-message" role="alert" className="form-error">
            {problem}
          </p>
        ) : null}
        <button type="submit" className="button" disabled={pair.isPending || pair.isSuccess}>
          {pair.isSuccess ? "Paired: opening…" : pair.isPending ? "Pairing…" : "Pair"}
        </button>
      </form>
    </div>
  );
}
