import type { IncomingMessage } from "node:http";

/** Reads a request body of at most `limit` bytes and parses it as JSON. */

export const MAX_BODY_BYTES = 1024 * 1024;

export type BodyRead =
  | { kind: "json"; value: unknown }
  | { kind: "empty" }
  | { kind: "too-large" }
  | { kind: "invalid"; reason: string };

function declaredLength(request: IncomingMessage): number | null {
  const header = request.headers["content-length"];
  return header === undefined ? null : Number(header);
}

export function parseJson(text: string): Exclude<BodyRead, { kind: "too-large" }> {
  if (text.trim() === "") return { kind: "empty" };
  try {
    return { kind: "json", value: JSON.parse(text) as unknown };
  } catch (error) {
    return { kind: "invalid", reason: error instanceof Error ? error.message : String(error) };
  }
}

/** What a read body stands for: its JSON; an empty body is `{}` where the body is optional, else missing. */
export const bodyValue = (read: Extract<BodyRead, { kind: "json" | "empty" }>, optional: boolean): unknown =>
  read.kind === "json" ? read.value : optional ? {} : undefined;

/** Reads a request body of at most `limit` bytes as UTF-8 text. */
export function readBodyText(
  request: IncomingMessage,
  limit = MAX_BODY_BYTES,
): Promise<{ kind: "text"; text: string } | { kind: "too-large" }> {
  return new Promise((resolve, reject) => {
    const declared = declaredLength(request);
    if (declared !== null && declared > limit) {
      request.resume();
      resolve({ kind: "too-large" });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      tooLarge ||= size > limit;
      if (!tooLarge) chunks.push(chunk);
    });
    request.on("error", reject);
    request.on("end", () =>
      resolve(
        tooLarge ? { kind: "too-large" } : { kind: "text", text: Buffer.concat(chunks).toString("utf8") },
      ),
    );
  });
}

export async function readJsonBody(request: IncomingMessage, limit = MAX_BODY_BYTES): Promise<BodyRead> {
  const read = await readBodyText(request, limit);
  return read.kind === "text" ? parseJson(read.text) : read;
}
