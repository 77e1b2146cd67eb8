import path from "node:path";
import { Worker } from "node:worker_threads";
import type { DryRunResult } from "@/server/domain/policy";
import { AppError } from "@/server/errors";
import { bundleWorkerSource } from "@/server/worker-bundle";
import type { DryRunRequest, DryRunResponse } from "./dry-run-worker";

/**
 * Runs a dry-run in its own worker thread with a deadline (the log-matcher's pattern, one thread per
 * dry-run): the console's event loop never evaluates a user's patterns over a user's log, a run past
 * DEADLINE_MS is ended and answered with what to try instead, and at most MAX_RUNNING run at once (these
 * machines have few cores; the next one is refused with TOO_MANY_REQUESTS, not queued).
 */

export const DEADLINE_MS = 5000;
const MAX_RUNNING = 2;
const WORKER_SOURCE = path.join("server", "services", "policies", "dry-run-worker.ts");

let code: Promise<string> | null = null;
let running = 0;

const bundle = () => bundleWorkerSource(WORKER_SOURCE);

async function workerCode(): Promise<string> {
  code ??= bundle();
  try {
    return await code;
  } catch (error) {
    code = null;
    throw new AppError("UNAVAILABLE", `dry-run: the evaluator could not be started (${String(error)})`);
  }
}

function runIn(worker: Worker, request: DryRunRequest): Promise<DryRunResult> {
  return new Promise<DryRunResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(
        new AppError(
          "UNAVAILABLE",
          `dry-run: stopped after ${DEADLINE_MS / 1000} s; try a shorter log excerpt or fewer rules`,
        ),
      );
      void worker.terminate();
    }, DEADLINE_MS);
    worker.once("message", (response: DryRunResponse) => {
      clearTimeout(timer);
      if (response.ok) resolve(response.result);
      else reject(new AppError("INVALID", `dry-run: ${response.error}`));
    });
    worker.once("error", (error) => {
      clearTimeout(timer);
      reject(new AppError("UNAVAILABLE", `dry-run: the evaluator failed (${error.message})`));
    });
    worker.postMessage(request);
  });
}

/** The dry-run's result, computed in a fresh worker thread that is ended afterwards. */
export async function runDryRun(request: DryRunRequest): Promise<DryRunResult> {
  if (running >= MAX_RUNNING) {
    throw new AppError(
      "TOO_MANY_REQUESTS",
      `dry-run: ${MAX_RUNNING} dry-runs are running; try again in a moment`,
    );
  }
  running += 1;
  try {
    const worker = new Worker(await workerCode(), { eval: true });
    worker.unref();
    try {
      return await runIn(worker, request);
    } finally {
      void worker.terminate();
    }
  } finally {
    running -= 1;
  }
}
