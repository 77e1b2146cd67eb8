"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { serverRefusal } from "@/components/governance/form-errors";
import { useTRPC } from "@/lib/trpc/client";
import styles from "./dry-run.module.css";
import { DryRunResultView } from "./dry-run-result";
import { DryRunSource, INITIAL_SOURCE, intervalMsOf, type SourceDraft } from "./dry-run-source";

type JobRef = { namespace: string; name: string };

/** The router's source for a draft, or why it cannot be run yet. */
function sourceOf(draft: SourceDraft, job: JobRef) {
  if (draft.kind === "rank")
    return {
      ok: true as const,
      source: { kind: "rank" as const, ...job, rank: draft.rank },
    };
  if (draft.text.trim() === "") return { ok: false as const, message: "Paste some log lines first." };
  const interval = intervalMsOf(draft.intervalSeconds);
  if (!interval.ok) return { ok: false as const, message: `Seconds between lines: ${interval.message}` };
  return { ok: true as const, source: { kind: "text" as const, text: draft.text, intervalMs: interval.ms } };
}

/**
 * Dry-run: the draft's rules run by the real evaluator on a simulated clock over pasted lines or a rank's
 * output since its attempt started, on the server (no user pattern runs in the browser's request path
 * twice). Shows, per rule, the matching lines and values, its states over time, the predicted fault (or,
 * on a running rank, when each open window fires if no matching line comes) and what the job's restart
 * policy would do next given its restart history. Changes nothing; viewers may run it too.
 */
export function DryRunPanel(props: { yaml: string; job: JobRef; ranks: number; policyOk: boolean }) {
  const trpc = useTRPC();
  const [draft, setDraft] = useState<SourceDraft>(
    props.ranks > 0 ? INITIAL_SOURCE : { ...INITIAL_SOURCE, kind: "text" },
  );
  const run = useMutation(trpc.policies.dryRun.mutationOptions());
  const source = sourceOf(draft, props.job);
  const blocked = !props.policyOk
    ? "Fix the problems in the policy first."
    : source.ok
      ? null
      : source.message;
  return (
    <section className="card" aria-labelledby="dry-run-heading">
      <h2 id="dry-run-heading">Dry-run</h2>
      <p className="muted">
        Runs the draft above over log lines on a simulated clock. Nothing is applied or restarted.
      </p>
      <DryRunSource value={draft} onChange={setDraft} ranks={props.ranks} />
      <div className={styles.toolbar}>
        <button
          type="button"
          className="button"
          disabled={blocked !== null || run.isPending}
          onClick={() => source.ok && run.mutate({ yaml: props.yaml, source: source.source, job: props.job })}
        >
          {run.isPending ? "Running…" : "Dry-run"}
        </button>
        {blocked ? <span className="muted">{blocked}</span> : null}
      </div>
      {run.isError ? (
        <p role="alert" className="form-error">
          Dry-run refused: {serverRefusal(run.error).message}
        </p>
      ) : null}
      {run.data ? <DryRunResultView result={run.data} /> : null}
    </section>
  );
}
