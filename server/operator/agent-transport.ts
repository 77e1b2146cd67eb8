import { Agent, request } from "node:http";

/**
 * How the operator sends one HTTP request to an agent: node:http over kept-alive connections. The
 * operator polls every agent every `pollMs` (256 agents at 10 polls a second in bench:k8s), so the
 * client's own cost per request is most of what the operator spends its CPU on. Measured on loopback
 * (client and server in one process, 64 agents): a status call cost ~220 µs of CPU through `fetch` (undici,
 * an AbortSignal per call) and ~65 µs through this; in bench:k8s the quiet operator went from 65 % to 35 %
 * of a core.
 *
 * Never throws: no answer within `timeoutMs` is `timeout`, a refused or broken connection is
 * `unreachable`, an answer over MAX_REPLY_BYTES is `invalid-response`. The status code and text are the
 * caller's to judge.
 */

export type AgentRequest = { method: "GET" | "POST"; url: string; body?: string; timeoutMs: number };
export type AgentReply = { status: number; text: string };
export type TransportError = { cause: "timeout" | "unreachable" | "invalid-response"; detail: string };
export type TransportResult = { ok: true; value: AgentReply } | { ok: false; error: TransportError };
export type AgentTransport = (req: AgentRequest) => Promise<TransportResult>;

/** A /status of 2,048 local ranks is ~1 MB; anything far past that is not an agent talking. */
const MAX_REPLY_BYTES = 16 * 1024 * 1024;

/**
 * Idle connections are closed after this long, before the agent's server closes them (node:http and
 * uvicorn both keep an idle connection 5 s), so a poll does not go out on a connection being closed.
 */
const IDLE_SOCKET_MS = 4000;

export function createHttpTransport(): AgentTransport {
  const agent = new Agent({ keepAlive: true, maxSockets: 4, maxFreeSockets: 2, timeout: IDLE_SOCKET_MS });
  return (req) =>
    new Promise<TransportResult>((resolve) => {
      let settled = false;
      const finish = (result: TransportResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolve(result);
      };
      const fail = (cause: TransportError["cause"], detail: string) =>
        finish({ ok: false, error: { cause, detail } });
      const headers: Record<string, string | number> =
        req.body === undefined
          ? {}
          : { "content-type": "application/json", "content-length": Buffer.byteLength(req.body) };
      const outgoing = request(req.url, { method: req.method, agent, headers }, (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_REPLY_BYTES) chunks.push(chunk);
          else {
            fail("invalid-response", `answer larger than ${MAX_REPLY_BYTES} bytes`);
            outgoing.destroy();
          }
        });
        response.on("end", () =>
          finish({
            ok: true,
            value: { status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") },
          }),
        );
        response.on("error", (error) => fail("unreachable", String(error)));
      });
      const deadline = setTimeout(() => {
        fail("timeout", `no answer within ${req.timeoutMs} ms`);
        outgoing.destroy();
      }, req.timeoutMs);
      outgoing.on("error", (error) => fail("unreachable", String(error)));
      outgoing.end(req.body);
    });
}
