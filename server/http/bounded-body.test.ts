import { describe, expect, it, vi } from "vitest";
import { BodyTooLargeError, DRAIN_BEFORE_CANCEL_MS, limitRequestBody, readBoundedBody } from "./bounded-body";

/** A source that counts what is pulled from it and records its cancellation. */
function countingSource(opts: { pieces: number; pieceBytes: number }) {
  const seen = { pulled: 0, cancelled: false };
  let left = opts.pieces;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (left === 0) return controller.close();
      left -= 1;
      seen.pulled += opts.pieceBytes;
      controller.enqueue(new Uint8Array(opts.pieceBytes));
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { stream, seen };
}

const post = (body: ReadableStream<Uint8Array> | string, headers: Record<string, string> = {}) =>
  new Request("http://console.test/api/trpc/auth.signIn", {
    method: "POST",
    headers,
    body,
    duplex: "half",
  } as RequestInit & { duplex: "half" });

describe("limitRequestBody", () => {
  it("passes a body within the limit through unchanged", async () => {
    const read = await readBoundedBody(post('{"json":{"a":1}}'), 1024);
    expect(read.ok && new TextDecoder().decode(read.bytes)).toBe('{"json":{"a":1}}');
  });

  it("refuses a declared Content-Length over the limit without waiting for a byte", async () => {
    // A client that declares 10 MiB and then sends nothing: the refusal cannot have waited to read.
    const silent = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => undefined) });
    const bounded = limitRequestBody(post(silent, { "content-length": String(10 * 1024 * 1024) }), {
      limit: 1024,
    });
    await expect(bounded.text()).rejects.toBeInstanceOf(BodyTooLargeError);
  });

  it("stops a streamed body at the limit: the reader gets the caller's error, the source is cancelled", async () => {
    // A client that never stops sending (64 KiB pieces without end); the limit is 1 MiB. A finite body
    // could be drained to its end before the drain's deadline on a fast machine, and then nothing is cancelled.
    const source = countingSource({ pieces: Number.POSITIVE_INFINITY, pieceBytes: 64 * 1024 });
    const refusal = new Error("too large for this test");
    const bounded = limitRequestBody(post(source.stream), { limit: 1024 * 1024, tooLarge: () => refusal });
    await expect(bounded.arrayBuffer()).rejects.toBe(refusal);
    // Cancelled after at most DRAIN_BEFORE_CANCEL_MS of draining; a loaded machine may take longer to get there.
    await vi.waitFor(() => expect(source.seen.cancelled).toBe(true), {
      timeout: DRAIN_BEFORE_CANCEL_MS + 10_000,
      interval: 50,
    });
  }, 20_000);

  it("answers 413 naming the limit to a route handler that reads the body itself", async () => {
    const read = await readBoundedBody(post("x".repeat(2048)), 1024);
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.response.status).toBe(413);
    expect(await read.response.json()).toMatchObject({
      error: { code: "PAYLOAD_TOO_LARGE", message: expect.stringContaining("1024 bytes") },
    });
  });
});
