import type { LocalBackend } from "@/server/cluster/local/backend";
import type { JobRef } from "@/server/cluster/types";
import type { LiveJob } from "@/server/domain/operator-api/contract";

/** Shared by the test harness and the benchmark: submit a job (throwing on refusal), poll until a probe holds. */
export async function submitOrThrow(backend: LocalBackend, yaml: string): Promise<JobRef> {
  const result = await backend.submitYaml(yaml);
  if (!result.ok)
    throw new Error(result.reason === "invalid" ? JSON.stringify(result.errors) : result.message);
  return result.job.ref;
}

export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/**
 * How many of a job's ranks have printed a step. A crash before a rank's first step is a restart without
 * progress: it waits out the crash-loop back-off, and it records no progress for the restart row.
 */
export const steppingRanks = (live: LiveJob | undefined): number =>
  (live?.pods ?? []).flatMap((pod) => pod.ranks).filter((rank) => rank.step !== null).length;
