import { parentPort } from "node:worker_threads";
import { type DryRunResult, dryRun } from "@/server/domain/policy";

/**
 * The worker thread behind dry-run.ts: runs one policy's rules over one log text with the real evaluator
 * and a simulated clock (server/domain/policy dryRun), off the console's event loop. User patterns and
 * user log text never run on the request path; a dry-run that takes too long is ended from outside.
 */

export type DryRunRequest = Parameters<typeof dryRun>[0];
export type DryRunResponse = { ok: true; result: DryRunResult } | { ok: false; error: string };

parentPort?.on("message", (request: DryRunRequest) => {
  let response: DryRunResponse;
  try {
    response = { ok: true, result: dryRun(request) };
  } catch (error) {
    response = { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(response);
});
