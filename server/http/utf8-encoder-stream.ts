/**
 * A TextEncoderStream that encodes each chunk in one call. Node 20's own (lib/internal/webstreams/encoding.js)
 * walks a chunk one UTF-16 unit at a time and appends each to a string: a chunk of n characters becomes a rope
 * of n string nodes (32 bytes each) before it is encoded. tRPC writes every SSE message through
 * `new TextEncoderStream()`, one chunk a message, so the first snapshot of a 16,384-rank job page (8.6 MB of
 * JSON) needed ~275 MB of heap for that rope and took the console (256 MB heap) down; at 2,048 ranks the
 * 1 MB snapshot spent ~110 ms of the server's thread in it. The walk is measured in utf8-encoder-stream.test.ts.
 *
 * Same output as the standard's "encode and enqueue a chunk": a high surrogate that ends a chunk waits for the
 * next one; an unpaired surrogate becomes U+FFFD (which TextEncoder already does); nothing is enqueued for an
 * empty result.
 */
export class Utf8EncoderStream extends TransformStream<string, Uint8Array> {
  readonly encoding = "utf-8";

  constructor() {
    const encoder = new TextEncoder();
    let pendingHigh = "";
    super({
      transform(chunk, controller) {
        let text = pendingHigh + String(chunk);
        pendingHigh = "";
        const last = text.charCodeAt(text.length - 1);
        if (last >= 0xd800 && last <= 0xdbff) {
          pendingHigh = text.slice(-1);
          text = text.slice(0, -1);
        }
        if (text.length > 0) controller.enqueue(encoder.encode(text));
      },
      flush(controller) {
        if (pendingHigh) controller.enqueue(encoder.encode(pendingHigh));
      },
    });
  }
}

/** Puts Utf8EncoderStream in place of the global TextEncoderStream, for every library in this process. */
export function installUtf8EncoderStream(): void {
  globalThis.TextEncoderStream = Utf8EncoderStream as unknown as typeof TextEncoderStream;
}
