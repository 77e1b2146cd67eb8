import { parseJobKey } from "@/server/cluster/types";
import type { OperatorApi } from "./api";
import type { listen } from "./setup";
import { percentile } from "./stats";

type Listener = Awaited<ReturnType<typeof listen>>;

export type AdmissionFigures = {
  admission_decision_p50_ms: number;
  admission_decision_p99_ms: number;
  free_to_admitted_p50_ms: number;
  free_to_admitted_p99_ms: number;
  repetitions: number;
};

/** Waits (at most `ms`) for the job's phase to be Running; false if it is not by then. */
async function untilRunning(phaseOf: (key: string) => Promise<string | null>, key: string, ms: number) {
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    if ((await phaseOf(key)) === "Running") return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

/**
 * Frees capacity `reps` times by deleting the oldest admitted job through the operator's API, and times the
 * next admission: from the row's removal to the admitted job's status write (both on Postgres's clock), and
 * from the API call to that write's notice. The job admitted becomes the next one deleted. Between two
 * repetitions the admitted job's pod starts and runs (phase Running), as between two real completions:
 * on this one machine its agent and trainer start-up would otherwise share the CPU with the next decision.
 */
export async function measureAdmissions(opts: {
  api: OperatorApi;
  listener: Listener;
  admitted: string[];
  reps: number;
  phaseOf: (key: string) => Promise<string | null>;
  say: (line: string) => void;
}): Promise<AdmissionFigures> {
  const decision: number[] = [];
  const endToEnd: number[] = [];
  const seen = new Set(opts.admitted);
  const queue = [...opts.admitted];
  for (let rep = 0; rep < opts.reps; rep += 1) {
    const victim = queue.shift();
    if (!victim) throw new Error("no admitted job left to delete");
    const started = performance.now();
    await opts.api.remove(parseJobKey(victim));
    const freed = await opts.listener.next("bench_freed", (notice) => notice.key === victim, 60_000);
    const admitted = await opts.listener.next("bench_admitted", (notice) => !seen.has(notice.key), 60_000);
    seen.add(admitted.key);
    queue.push(admitted.key);
    decision.push(admitted.at - freed.at);
    endToEnd.push(admitted.receivedAt - started);
    opts.say(
      `rep ${rep + 1}: ${victim} freed → ${admitted.key} admitted in ${(admitted.at - freed.at).toFixed(1)} ms`,
    );
    if (!(await untilRunning(opts.phaseOf, admitted.key, 15_000)))
      opts.say(`${admitted.key} was not Running after 15 s; going on`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    admission_decision_p50_ms: percentile(decision, 50),
    admission_decision_p99_ms: percentile(decision, 99),
    free_to_admitted_p50_ms: percentile(endToEnd, 50),
    free_to_admitted_p99_ms: percentile(endToEnd, 99),
    repetitions: opts.reps,
  };
}
