/**
 * HyperPod's IPC framing (hyperpod_elastic_agent/ipc/util.py, LengthPrefixMessageFramer): every message is
 * a 4-byte unsigned big-endian length followed by that many bytes of UTF-8 JSON. The JSON object carries
 * `type` (the message type) and `client_id`; a client adds `local_rank` to what it sends. Used by the
 * agent's socket server and by the demo trainer's client (examples/trainer/ipc-client.ts).
 */

export const PREFIX_BYTES = 4;
/** Larger frames are refused (the connection is closed): a rank's data is small, this bounds memory. */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

export type IpcMessage = { type: string; client_id: string } & Record<string, unknown>;

export function frameMessage(message: Record<string, unknown>): Buffer {
  const body = Buffer.from(JSON.stringify(message), "utf8");
  const prefix = Buffer.alloc(PREFIX_BYTES);
  prefix.writeUInt32BE(body.length, 0);
  return Buffer.concat([prefix, body]);
}

export type FrameDecoder = {
  /** Feeds received bytes; returns the complete frames' payloads, in order. Throws on an oversized frame. */
  push(chunk: Buffer): Buffer[];
};

export function createFrameDecoder(maxBytes = MAX_FRAME_BYTES): FrameDecoder {
  let buffer: Buffer = Buffer.alloc(0);
  let length: number | null = null;
  /** The next complete frame in the buffer, or null until more bytes arrive. */
  const next = (): Buffer | null => {
    if (length === null) {
      if (buffer.length < PREFIX_BYTES) return null;
      length = buffer.readUInt32BE(0);
      if (length > maxBytes) throw new Error(`IPC frame of ${length} bytes exceeds ${maxBytes}`);
      buffer = buffer.subarray(PREFIX_BYTES);
    }
    if (buffer.length < length) return null;
    const frame = Buffer.from(buffer.subarray(0, length));
    buffer = buffer.subarray(length);
    length = null;
    return frame;
  };
  return {
    push(chunk) {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      const frames: Buffer[] = [];
      for (let frame = next(); frame !== null; frame = next()) frames.push(frame);
      return frames;
    },
  };
}

/** A frame's payload as a message: a JSON object with a string `type`, else null (ignored, as HyperPod). */
export function parseMessage(payload: Buffer): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(payload.toString("utf8"));
    if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
    return value as Record<string, unknown>;
  } catch {
    return null;
  }
}
