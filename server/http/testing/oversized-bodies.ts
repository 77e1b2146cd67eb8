import { readFileSync } from "node:fs";
import net from "node:net";

/**
 * The attacks of issue 16 item 5, for the adversarial test and `npm run bench:abuse`: a huge body streamed
 * from a generator (never held in memory by the sender) and a Content-Length that promises more than is sent.
 */
const PIECE = new Uint8Array(64 * 1024).fill(0x20);

/** `totalBytes` of spaces, one 64 KiB piece at a time, made only as the connection takes them. */
function pieces(totalBytes: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= totalBytes) return controller.close();
      sent += PIECE.byteLength;
      controller.enqueue(PIECE);
    },
  });
}

export type Refusal = { status: number; ms: number; body: string };

/** POSTs `totalBytes` of JSON-ish padding, chunked; the answer's status and the time to its headers. */
export async function postStreamed(opts: { url: string; totalBytes: number }): Promise<Refusal> {
  const started = performance.now();
  const response = await fetch(opts.url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: pieces(opts.totalBytes),
    duplex: "half",
  } as RequestInit & { duplex: "half" });
  const ms = performance.now() - started;
  return { status: response.status, ms, body: await response.text() };
}

/** Declares `declaredBytes` in Content-Length, sends a few bytes and waits for the status line. */
export function postLyingLength(opts: { url: string; declaredBytes: number }): Promise<Refusal> {
  const url = new URL(opts.url);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    let answer = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error("no answer within 10 s to a lying Content-Length"));
    }, 10_000);
    socket.on("connect", () =>
      socket.write(
        `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${opts.declaredBytes}\r\n\r\n{"json":{`,
      ),
    );
    socket.on("data", (data) => {
      answer += data.toString("latin1");
      if (!answer.includes("\r\n\r\n")) return;
      clearTimeout(timer);
      socket.destroy();
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
      resolve({ status, ms: performance.now() - started, body: answer.split("\r\n\r\n")[1] ?? "" });
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/** A process's resident set size in bytes (Linux /proc). */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
  if (!Number.isFinite(kib)) throw new Error(`no VmRSS for pid ${pid}`);
  return kib * 1024;
}
