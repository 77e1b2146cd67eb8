import { constants } from "node:fs";
import { type FileHandle, open, realpath } from "node:fs/promises";
import path from "node:path";
import type { JobRef } from "@/server/cluster/types";
import { AppError } from "@/server/errors";
import { requireName } from "../names";
import { podDir } from "./pod-dirs";

/**
 * Where a local pod's agent writes its output: `<pod dir>/agent.log` (pod-dirs.ts; pods.ts opens it
 * there). Reading one is the only way a request names a file here, so the names are checked first, and the
 * file's real path (symlinks resolved) must lie inside that pod's own directory under the real pods dir:
 * a pod that swaps its agent.log for a link to another pod's log or any file on the machine reads nothing.
 */
export const POD_LOG_FILE = "agent.log";
const TAIL_BYTES = 1024 * 1024;

const missing = (error: unknown) => (error as NodeJS.ErrnoException).code === "ENOENT";

/** The last `lines` lines of the open file, reading at most its last megabyte. */
async function tailOf(handle: FileHandle, lines: number): Promise<string> {
  const { size } = await handle.stat();
  const length = Math.min(size, TAIL_BYTES);
  const buffer = Buffer.alloc(length);
  await handle.read(buffer, 0, length, size - length);
  return buffer
    .toString("utf8")
    .split("\n")
    .slice(-lines - 1)
    .join("\n");
}

/** The log file's real path, checked to lie inside its pod's directory; null when there is no log (yet). */
async function resolveLog(opts: {
  podsDir: string;
  ref: JobRef;
  pod: string;
  uid?: string;
}): Promise<string | null> {
  const namespace = requireName("namespace", opts.ref.namespace);
  const pod = requireName("pod", opts.pod);
  const run = opts.uid === undefined ? undefined : { job: requireName("pod", opts.ref.name), uid: opts.uid };
  const root = await realpath(opts.podsDir).catch((error: unknown) => {
    if (missing(error)) return null;
    throw error;
  });
  if (root === null) return null;
  const dir = podDir(root, { namespace, pod, run });
  const real = await realpath(path.join(dir, POD_LOG_FILE)).catch((error: unknown) => {
    if (missing(error)) return null;
    throw error;
  });
  if (real === null) return null;
  const inside = path.relative(dir, real);
  if (inside === "" || inside.startsWith("..") || path.isAbsolute(inside))
    throw new AppError("FORBIDDEN", `pod ${pod}: its log resolves to a file outside the pod's log directory`);
  return real;
}

/** The last `tailLines` lines of a local pod's log; "" when it has none. */
export async function readPodLog(opts: {
  podsDir: string;
  ref: JobRef;
  pod: string;
  /** The job's uid: its run's directory (pod-dirs.ts). */
  uid?: string;
  tailLines: number;
}): Promise<string> {
  const file = await resolveLog(opts);
  if (file === null) return "";
  let handle: FileHandle | undefined;
  try {
    // O_NOFOLLOW: a link put in place after the check above is refused, not followed.
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    if (!(await handle.stat()).isFile())
      throw new AppError("FORBIDDEN", `pod ${opts.pod}: its log is not a regular file`);
    return await tailOf(handle, opts.tailLines);
  } catch (error) {
    if (missing(error)) return "";
    if ((error as NodeJS.ErrnoException).code === "ELOOP")
      throw new AppError("FORBIDDEN", `pod ${opts.pod}: its log is a symbolic link`);
    throw error;
  } finally {
    await handle?.close();
  }
}
