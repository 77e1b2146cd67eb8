import { describe, expect, it } from "vitest";
import { createFrameDecoder, frameMessage, parseMessage } from "./framing";

describe("IPC framing (HyperPod's LengthPrefixMessageFramer)", () => {
  it("prefixes the JSON with its byte length, big-endian, 4 bytes", () => {
    const frame = frameMessage({ type: "init", local_rank: 0, client_id: "é" });
    const body = Buffer.from('{"type":"init","local_rank":0,"client_id":"é"}', "utf8");
    expect(frame.readUInt32BE(0)).toBe(body.length);
    expect(frame.subarray(4)).toEqual(body);
  });

  it("reassembles frames split at any byte and several frames in one chunk", () => {
    const frames = Buffer.concat([frameMessage({ type: "a", n: 1 }), frameMessage({ type: "b", n: 2 })]);
    for (let cut = 0; cut <= frames.length; cut++) {
      const decoder = createFrameDecoder();
      const out = [...decoder.push(frames.subarray(0, cut)), ...decoder.push(frames.subarray(cut))];
      expect(out.map((payload) => parseMessage(payload))).toEqual([
        { type: "a", n: 1 },
        { type: "b", n: 2 },
      ]);
    }
  });

  it("reads a frame byte by byte", () => {
    const decoder = createFrameDecoder();
    const frame = frameMessage({ type: "job_start", worker_envs: { RANK: "3" } });
    const out = [...frame].flatMap((byte) => decoder.push(Buffer.from([byte])));
    expect(out.map((payload) => parseMessage(payload))).toEqual([
      { type: "job_start", worker_envs: { RANK: "3" } },
    ]);
  });

  it("refuses a frame over the limit and ignores payloads that are not JSON objects", () => {
    const decoder = createFrameDecoder(10);
    expect(() => decoder.push(frameMessage({ type: "x", pad: "0123456789" }))).toThrow(/exceeds 10/);
    expect(parseMessage(Buffer.from("[1]"))).toBeNull();
    expect(parseMessage(Buffer.from("{oops"))).toBeNull();
  });
});
