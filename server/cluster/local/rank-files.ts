import { constants } from "node:fs";
import { type FileHandle, open, readdir, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { StringDecoder } from "node:string_decoder";
import { createLineSplitter } from "@/server/agent/line-splitter";
import { MAX_LINE_CHARS } from "@/server/domain/log-rules/pattern";
import { AppError } from "@/server/errors";

/**
 * The files of a local pod's ranks, written by the pod's own agent under `<pod dir>/logs/` (its --log-dir:
 * `<runId>_<agentId>/attempt_<n>/<local rank>/stdout.log`, HyperPod's layout). The pod writes that folder,
 * so nothing in it is trusted: folders are found by listing (a link is never taken for a folder), and a
 * file is opened without following a link, must be a regular file, and must be the very file whose real
 * path lies inside the pod's own directory (checked again after opening, so a folder swapped for a link
 * in between reads nothing).
 */

const missing = (error: unknown) => (error as NodeJS.ErrnoException).code === "ENOENT";
const ATTEMPT = /^attempt_(\d{1,9})$/;

async function folders(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true }))
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch (error) {
    if (missing(error)) return [];
    throw error;
  }
}

/** The newest agent run's newest attempt folder under a pod's log dir, and its number; null: none yet. */
export async function currentAttempt(logDir: string): Promise<{ dir: string; attempt: number } | null> {
  const runs = (await folders(logDir)).filter((name) => name !== "hyperpod-config");
  const dated = await Promise.all(
    runs.map(async (name) => ({ name, at: (await stat(path.join(logDir, name))).mtimeMs })),
  );
  dated.sort((a, b) => b.at - a.at);
  for (const run of dated) {
    const attempts = (await folders(path.join(logDir, run.name)))
      .map((name) => Number(ATTEMPT.exec(name)?.[1] ?? Number.NaN))
      .filter(Number.isInteger);
    if (attempts.length === 0) continue;
    const attempt = Math.max(...attempts);
    return { dir: path.join(logDir, run.name, `attempt_${attempt}`), attempt };
  }
  return null;
}

function isInside(dir: string, file: string): boolean {
  const inside = path.relative(dir, file);
  return inside !== "" && !inside.startsWith("..") && !path.isAbsolute(inside);
}

/** The file opened read-only if it is a regular file inside `podDir` (a real path); null when missing. */
export async function openInside(podDir: string, file: string): Promise<FileHandle | null> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    const [opened, real] = await Promise.all([handle.stat(), realpath(file)]);
    const checked = await stat(real);
    const same = opened.dev === checked.dev && opened.ino === checked.ino;
    if (!opened.isFile() || !same || !isInside(podDir, real))
      throw new AppError("FORBIDDEN", `${path.basename(file)}: not a file of the pod's own log folder`);
    return handle;
  } catch (error) {
    await handle?.close();
    if (missing(error)) return null;
    if ((error as NodeJS.ErrnoException).code === "ELOOP")
      throw new AppError("FORBIDDEN", `${path.basename(file)}: a symbolic link, not the pod's own file`);
    throw error;
  }
}

/** The last `bytes` of an open file as text (a torn first line is the caller's to drop). */
export async function readTail(handle: FileHandle, bytes: number): Promise<string> {
  const { size } = await handle.stat();
  const length = Math.min(size, bytes);
  const buffer = Buffer.alloc(length);
  await handle.read(buffer, 0, length, size - length);
  return buffer.toString("utf8");
}

/** How far into a rank's file lines are looked for: past this, a dry-run would not read them anyway. */
export const MAX_SCAN_BYTES = 256 * 1024 * 1024;

/**
 * Lines `skip` … `skip + count - 1` of an open file, cut as the agent cut them when they arrived
 * (server/agent/line-splitter.ts, MAX_LINE_CHARS + 1 characters at most). An unterminated last line is
 * not returned: the agent has not read it as a line yet. Reads at most MAX_SCAN_BYTES.
 */
export async function readLines(
  handle: FileHandle,
  range: { skip: number; count: number; maxBytes?: number },
): Promise<string[]> {
  const lines: string[] = [];
  if (range.count <= 0) return lines;
  let seen = 0;
  const splitter = createLineSplitter({
    maxChars: MAX_LINE_CHARS + 1,
    onLine: (line) => {
      if (seen >= range.skip && lines.length < range.count) lines.push(line);
      seen += 1;
    },
  });
  const decoder = new StringDecoder("utf8");
  const stream = handle.createReadStream({
    start: 0,
    end: (range.maxBytes ?? MAX_SCAN_BYTES) - 1,
    autoClose: false,
    highWaterMark: 256 * 1024,
  });
  for await (const chunk of stream) {
    splitter.push(decoder.write(chunk as Buffer));
    if (lines.length >= range.count) break;
  }
  stream.destroy();
  return lines;
}
