import path from "node:path";
import { Worker } from "node:worker_threads";
import { MAX_LINE_CHARS } from "@/server/domain/log-rules/pattern";
import { rootLogger } from "@/server/log";
import { bundleWorkerSource } from "@/server/worker-bundle";
import type { MatchRequest, MatchResponse } from "./log-match-worker";
import type { MarkingRule } from "./log-matcher-rules";

/**
 * Which log rules mark each line of the console's logs view (the patterns of log-matcher-rules.ts: a
 * rule's fault, metric past its threshold, or stop; not its every match), computed off the request path: user patterns
 * run in one worker thread (log-match-worker.ts), never on the console's event loop, so a costly rule set
 * cannot delay other requests (issue 16: 100 costly rules blocked every request for 17 s).
 * - one worker, started on first use from the TypeScript source bundled by esbuild (the console runs from
 *   the repository, as `npm start` and the image do);
 * - at most MAX_WAITING requests waiting; past that a request gets its lines with no matches at once;
 * - each request has BUDGET_MS of rule time in the worker (log-match-worker.ts: a rule that would overrun
 *   it waits for the next request); lines left come back unmarked. A request is answered within ANSWER_MS
 *   however busy the worker or the machine is: past it, the lines come back unmarked and what the worker
 *   still finds goes to its cache for the next request (the page asks for the same tail again). A worker
 *   that has not answered within BUDGET_MS + STUCK_GRACE_MS is ended and a new one started;
 * - results are cached in the worker, per rule set and line, partial ones included.
 * Without a worker (it cannot be built or started) lines come back unmarked and the reason is logged once.
 */

export const BUDGET_MS = 40;
/** The most a logs-view request waits for the worker (issue 34: bench:abuse's logs view p99 target is 200 ms). */
export const ANSWER_MS = 2 * BUDGET_MS;
const STUCK_GRACE_MS = 2000;
const MAX_WAITING = 16;
const log = rootLogger.child({ module: "log-matcher" });
const WORKER_SOURCE = path.join("server", "services", "jobs", "log-match-worker.ts");

/** A request the worker has not answered yet; `resolve` may already have run (ANSWER_MS passed). */
type Waiting = {
  resolve: (matches: string[][]) => void;
  timers: NodeJS.Timeout[];
  count: number;
};

type MatcherState = {
  worker: Worker | null;
  code: Promise<string> | null;
  nextId: number;
  waiting: Map<number, Waiting>;
  failure: string | null;
};

const state: MatcherState = { worker: null, code: null, nextId: 1, waiting: new Map(), failure: null };

const unmarked = (count: number): string[][] => Array.from({ length: count }, () => []);

const bundleWorker = () => bundleWorkerSource(WORKER_SOURCE);

function settleAll(): void {
  for (const [id, waiting] of state.waiting) {
    for (const timer of waiting.timers) clearTimeout(timer);
    waiting.resolve(unmarked(waiting.count));
    state.waiting.delete(id);
  }
}

function dropWorker(): void {
  const worker = state.worker;
  state.worker = null;
  settleAll();
  void worker?.terminate();
}

async function worker(): Promise<Worker> {
  if (state.worker) return state.worker;
  state.code ??= bundleWorker();
  const code = await state.code;
  if (state.worker) return state.worker;
  const started = new Worker(code, { eval: true });
  started.unref();
  started.on("message", (response: MatchResponse) => {
    const waiting = state.waiting.get(response.id);
    if (!waiting) return;
    for (const timer of waiting.timers) clearTimeout(timer);
    state.waiting.delete(response.id);
    waiting.resolve(response.matches);
  });
  started.on("error", (error) => {
    log.error("log-rule worker failed", { error: String(error) });
    if (state.worker === started) dropWorker();
  });
  started.on("exit", () => {
    if (state.worker === started) dropWorker();
  });
  state.worker = started;
  return started;
}

function logFailureOnce(error: unknown): void {
  if (state.failure !== null) return;
  state.failure = error instanceof Error ? error.message : String(error);
  log.error("logs view: log rules are not marked (no worker)", { error: state.failure });
}

/**
 * For each line, the names of the rules whose logPattern matches it (a rule with `metric`: whose capture
 * passes the comparison too); where the worker's budget ran out, those found so far; past ANSWER_MS, none.
 */
export async function matchLogLines(input: {
  rules: readonly MarkingRule[];
  lines: readonly string[];
}): Promise<string[][]> {
  const { rules, lines } = input;
  if (rules.length === 0 || lines.length === 0) return unmarked(lines.length);
  if (state.waiting.size >= MAX_WAITING) return unmarked(lines.length);
  let running: Worker;
  try {
    running = await worker();
  } catch (error) {
    state.code = null;
    logFailureOnce(error);
    return unmarked(lines.length);
  }
  const id = state.nextId++;
  // No pattern sees past MAX_LINE_CHARS (+1 keeps "this line was cut"): the rest is not copied to the worker.
  const cut = lines.map((line) => line.slice(0, MAX_LINE_CHARS + 1));
  const request: MatchRequest = { id, rules: [...rules], lines: cut, budgetMs: BUDGET_MS };
  return new Promise<string[][]>((resolve) => {
    // Answered unmarked past ANSWER_MS; the entry stays until the worker answers, so MAX_WAITING still
    // counts the worker's backlog and a stuck worker is still noticed.
    const late = setTimeout(() => resolve(unmarked(lines.length)), ANSWER_MS);
    const stuck = setTimeout(() => {
      // The worker is stuck past its own budget: end it; the next request starts a fresh one.
      if (state.worker === running) dropWorker();
    }, BUDGET_MS + STUCK_GRACE_MS);
    state.waiting.set(id, { resolve, timers: [late, stuck], count: lines.length });
    running.postMessage(request);
  });
}
