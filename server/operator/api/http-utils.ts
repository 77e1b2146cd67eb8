import type { IncomingMessage, ServerResponse } from "node:http";
import { MAX_BODY_BYTES } from "@/server/domain/limits";
import { API_VERSION_HEADER, OPERATOR_API_VERSION } from "@/server/domain/operator-api/contract";
import type { AppErrorCode } from "@/server/errors";

export { MAX_BODY_BYTES };

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** The status an AppError from a back end answers with (e.g. a pod name refused there: 400). */
export const APP_ERROR_STATUS: Record<AppErrorCode, number> = {
  INVALID: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  TOO_MANY_REQUESTS: 429,
  UNAVAILABLE: 503,
};

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, `request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Every JSON answer says which version of the API contract it follows (the console checks it). */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    [API_VERSION_HEADER]: OPERATOR_API_VERSION,
  });
  res.end(text);
}

export function sendText(res: ServerResponse, status: number, body: string, contentType: string): void {
  res.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(body) });
  res.end(body);
}
