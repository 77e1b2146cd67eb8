/**
 * Request bodies bounded while they are read, before anything parses them (issue 16 item 5). A declared
 * Content-Length over the limit is refused before a byte is read; a chunked body is counted as it streams
 * and the read stops, cancelling the source, at the first byte past the limit. Whatever reads the bounded
 * request (tRPC's fetch adapter, `readBoundedBody`) therefore never holds more than the limit.
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

/** A stream that passes `source` through until `limit` bytes, then cancels it and fails with `tooLarge`. */
function boundedStream(
  source: ReadableStream<Uint8Array>,
  opts: Required<Limit> & { declared: number | null },
): ReadableStream<Uint8Array> {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let received = 0;
  const refuse = async (controller: ReadableStreamDefaultController<Uint8Array>) => {
    controller.error(opts.tooLarge(opts.limit));
    await (reader ?? source).cancel("request body over the limit").catch(() => undefined);
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
    { status: 413, headers: { connection: "close" } },
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
