/**
 * Request bodies bounded while they are read, before anything parses them (issue 16 item 5). A declared
 * Content-Length over the limit is refused before a byte is kept; a chunked body is counted as it streams
 * and refused at the first byte past the limit, after which nothing more is kept and the source is cancelled
 * (DRAIN_BEFORE_CANCEL_MS). Whatever reads the bounded request (tRPC's fetch adapter, `readBoundedBody`)
 * therefore never holds more than the limit.
 */

/** The refusal a bounded body fails with unless the caller names its own (tRPC's PAYLOAD_TOO_LARGE). */
export class BodyTooLargeError extends Error {
  override name = "BodyTooLargeError";
  constructor(readonly limit: number) {
    super(`request body over the limit of ${limit} bytes (REBOUND_MAX_BODY_BYTES)`);
  }
}

/** The Content-Length the client declared, or null when it sent none (chunked) or an unreadable one. */
export function declaredLength(headers: Headers): number | null {
  const raw = headers.get("content-length");
  if (raw === null || !/^\d+$/.test(raw.trim())) return null;
  return Number(raw.trim());
}

type Limit = {
  limit: number;
  /** The error the bounded body fails with; default BodyTooLargeError. */
  tooLarge?: (limit: number) => unknown;
};

/**
 * How long a refused body is still read (and dropped) before its stream is cancelled. Cancelling at once
 * destroys the connection under the 413, so the client sees a reset instead of the answer; reading on for
 * this long lets the 413 go out first, and costs bandwidth, never memory.
 */
export const DRAIN_BEFORE_CANCEL_MS = 1000;

/** Reads and drops what the client still sends, then cancels the source (its connection is closed). */
async function drainThenCancel(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const stopAt = Date.now() + DRAIN_BEFORE_CANCEL_MS;
  // The timer ends a read that waits on the network; the clock check ends a source that never waits.
  const deadline = new Promise<"cancel">((resolve) => {
    timer = setTimeout(() => resolve("cancel"), DRAIN_BEFORE_CANCEL_MS);
    timer.unref?.();
  });
  try {
    while (Date.now() < stopAt) {
      const next = await Promise.race([reader.read(), deadline]);
      if (next === "cancel") break;
      if (next.done) return;
    }
    await reader.cancel("request body over the limit");
  } catch {
    // The client went away first: nothing left to read or cancel.
  } finally {
    clearTimeout(timer);
  }
}

/** A stream that passes `source` through until `limit` bytes, then fails with `tooLarge` and stops it. */
function boundedStream(
  source: ReadableStream<Uint8Array>,
  opts: Required<Limit> & { declared: number | null },
): ReadableStream<Uint8Array> {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let received = 0;
  const refuse = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    controller.error(opts.tooLarge(opts.limit));
    reader ??= source.getReader();
    void drainThenCancel(reader);
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (opts.declared !== null && opts.declared > opts.limit) return refuse(controller);
      reader ??= source.getReader();
      const chunk = await reader.read();
      if (chunk.done) return controller.close();
      received += chunk.value.byteLength;
      if (received > opts.limit) return refuse(controller);
      controller.enqueue(chunk.value);
    },
    cancel: (reason) => (reader ?? source).cancel(reason),
  });
}

/** The same request with its body bounded (requests without a body are returned as they are). */
export function limitRequestBody(request: Request, opts: Limit): Request {
  const source = request.body;
  if (!source) return request;
  const body = boundedStream(source, {
    limit: opts.limit,
    tooLarge: opts.tooLarge ?? ((limit) => new BodyTooLargeError(limit)),
    declared: declaredLength(request.headers),
  });
  return new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body,
    signal: request.signal,
    duplex: "half",
  } as RequestInit & { duplex: "half" });
}

/** 413 with a JSON body naming the limit, for route handlers that read bodies themselves. */
export function payloadTooLarge(limit: number): Response {
  return Response.json(
    { error: { code: "PAYLOAD_TOO_LARGE", message: new BodyTooLargeError(limit).message } },
    { status: 413 },
  );
}

export type BoundedBody = { ok: true; bytes: Uint8Array } | { ok: false; response: Response };

/** The whole body, read within `limit` bytes, or the 413 to answer with. */
export async function readBoundedBody(request: Request, limit: number): Promise<BoundedBody> {
  try {
    const bytes = new Uint8Array(await limitRequestBody(request, { limit }).arrayBuffer());
    return { ok: true, bytes };
  } catch (error) {
    if (error instanceof BodyTooLargeError) return { ok: false, response: payloadTooLarge(limit) };
    throw error;
  }
}
