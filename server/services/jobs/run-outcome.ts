/**
 * How a past run ended, as Past runs and a past run's page say it. The operator writes the phase and a
 * reason a user can read when the job ends (server/operator/reconcilers/runs.ts): Succeeded, Failed with
 * the failure, or Deleted with "Deleted while Running after 3 restarts". Rows from before that were
 * written only at the deletion, with the phase the job was in and its last condition's message ("The
 * fault … was remediated …", not how it ended): a phase that is not an end says it was deleted then.
 */
export type RunOutcome = {
  /** Succeeded, Failed or Deleted. */
  outcome: "Succeeded" | "Failed" | "Deleted";
  /** The one line Past runs shows: "Succeeded", "Failed: CrashLoop: …", "Deleted while Running after 3 restarts". */
  summary: string;
};

const restarts = (count: number) => `${count} ${count === 1 ? "restart" : "restarts"}`;

/** `restarts`: the restarts the run's records count (for rows that do not say it themselves). */
export function runOutcome(run: {
  phase: string | null;
  reason: string | null;
  restarts: number;
}): RunOutcome {
  const reason = run.reason?.replace(/\s+/g, " ").trim() || null;
  if (run.phase === "Succeeded") return { outcome: "Succeeded", summary: "Succeeded" };
  if (run.phase === "Failed") return { outcome: "Failed", summary: reason ? `Failed: ${reason}` : "Failed" };
  if (run.phase === "Deleted" && reason) return { outcome: "Deleted", summary: reason };
  const during = run.phase && run.phase !== "Deleted" ? ` while ${run.phase}` : "";
  return { outcome: "Deleted", summary: `Deleted${during} after ${restarts(run.restarts)}` };
}
