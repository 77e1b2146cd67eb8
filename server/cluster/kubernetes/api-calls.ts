import { PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { JOB_GROUP, JOB_PLURAL, JOB_VERSION } from "@/server/domain/job-spec/job-spec.schema";
import type { InformerOptions, KubeObject } from "./informer";

/** What every informer of the back end shares: the cluster, the log and the watch's timings. */
export type WatchSettings = Pick<
  InformerOptions<KubeObject>,
  "kubeConfig" | "log" | "watchTimeoutSeconds" | "stallMs"
>;

export const CONFLICT_RETRIES = 5;
export const JOB_API = { group: JOB_GROUP, version: JOB_VERSION, plural: JOB_PLURAL };
export const MERGE_PATCH = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

export const statusCode = (error: unknown): number | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "number" ? code : undefined;
};

/** Ignores "already gone" (404) and, for creates, "already there" (409). */
export async function tolerate(codes: number[], call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (error) {
    if (!codes.includes(statusCode(error) ?? 0)) throw error;
  }
}

/** The call's result, or "gone" when the API server answers 404. */
export async function tolerateGone<T>(call: () => Promise<T>): Promise<T | "gone"> {
  try {
    return await call();
  } catch (error) {
    if (statusCode(error) === 404) return "gone";
    throw error;
  }
}

/** Runs `write` again (up to CONFLICT_RETRIES times) while the API server answers 409 Conflict. */
export async function retryOnConflict(
  what: string,
  write: (attempt: number) => Promise<void>,
): Promise<void> {
  for (let attempt = 0; attempt < CONFLICT_RETRIES; attempt += 1) {
    try {
      return await write(attempt);
    } catch (error) {
      if (statusCode(error) !== 409) throw error;
    }
  }
  throw new Error(`${what}: still conflicting after ${CONFLICT_RETRIES} attempts`);
}
