import { afterEach, describe, expect, it } from "vitest";
import { installUtf8EncoderStream, Utf8EncoderStream } from "./utf8-encoder-stream";

const NodeTextEncoderStream = globalThis.TextEncoderStream;

async function encodeChunks(
  stream: TransformStream<string, Uint8Array>,
  chunks: unknown[],
): Promise<number[][]> {
  const source = new ReadableStream<string>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk as string);
      controller.close();
    },
  });
  return (await readAll(source.pipeThrough(stream))).map((bytes) => [...bytes]);
}

async function readAll(readable: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const reader = readable.getReader();
  const out: Uint8Array[] = [];
  for (let next = await reader.read(); !next.done; next = await reader.read()) out.push(next.value);
  return out;
}

const HIGH = "\ud83d";
const LOW = "\ude80"; // with HIGH: U+1F680 ROCKET

describe("Utf8EncoderStream", () => {
  afterEach(() => {
    globalThis.TextEncoderStream = NodeTextEncoderStream;
  });

  it.each<[string, unknown[]]>([
    ["ASCII chunks", ["data: {}\n", "\n"]],
    ["multi-byte characters", ["ü € 中", "é"]],
    ["a surrogate pair split across chunks", [`a${HIGH}`, `${LOW}b`]],
    ["a chunk that is only a high surrogate", [HIGH, LOW]],
    ["a high surrogate followed by no low one", [`x${HIGH}`, "y"]],
    ["an unpaired low surrogate", [`${LOW}z`]],
    ["a high surrogate at the very end", ["end", HIGH]],
    ["empty chunks", ["", "a", ""]],
    ["chunks that are not strings", [42, null]],
  ])("enqueues what Node's TextEncoderStream does: %s", async (_, chunks) => {
    const ours = await encodeChunks(new Utf8EncoderStream(), chunks);
    expect(ours).toEqual(await encodeChunks(new NodeTextEncoderStream(), chunks));
    expect(ours.flat()).toEqual([...new TextEncoder().encode(chunks.map(String).join(""))]);
  });

  it("encodes a large chunk in one piece, where Node's walks it a character at a time", async () => {
    // One SSE message of a 2,048-rank job page's size (~1 MB of JSON).
    const chunk = `data: ${JSON.stringify({ ranks: Array.from({ length: 2048 }, (_, rank) => ({ rank, lastLine: `step=${rank} loss=2.2017 throughput=1207 samples/s` })) }).repeat(8)}\n\n`;
    const timed = async (stream: TransformStream<string, Uint8Array>) => {
      const began = performance.now();
      const writer = stream.writable.getWriter();
      void writer.write(chunk).then(() => writer.close());
      const sizes = (await readAll(stream.readable)).map((bytes) => bytes.byteLength);
      return { ms: performance.now() - began, chunks: sizes.length, bytes: sizes[0] };
    };
    const node = await timed(new NodeTextEncoderStream());
    const ours = await timed(new Utf8EncoderStream());
    console.log(
      `a ${(chunk.length / 1e6).toFixed(1)} MB SSE message: Node's TextEncoderStream ${node.ms.toFixed(0)} ms, Utf8EncoderStream ${ours.ms.toFixed(0)} ms`,
    );
    expect(ours).toMatchObject({ chunks: 1, bytes: node.bytes });
  });

  it("takes the global TextEncoderStream's place once installed", () => {
    installUtf8EncoderStream();
    expect(new TextEncoderStream()).toBeInstanceOf(Utf8EncoderStream);
    expect(new TextEncoderStream().encoding).toBe("utf-8");
  });
});
