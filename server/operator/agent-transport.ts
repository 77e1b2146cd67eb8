import { Agent, type AgentOptions, type ClientRequest, type ClientRequestArgs, request } from "node:http";
import type { Socket } from "node:net";

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

/**
 * A request's JSON body: its text, or its text in parts, sent in order. A part many bodies share (the
 * job-wide part of every /start of one attempt, reconcilers/steps.ts) is one Buffer written to each
 * request as it is, never copied into a whole body per agent.
 */
export type RequestBody = string | readonly (string | Buffer)[];

const partBytes = (part: string | Buffer) =>
  typeof part === "string" ? Buffer.byteLength(part) : part.length;

/** The body's length in bytes (its Content-Length). */
export const bodyBytes = (body: RequestBody): number =>
  typeof body === "string" ? Buffer.byteLength(body) : body.reduce((sum, part) => sum + partBytes(part), 0);

/** The body as one text (tests, logs). */
export const bodyText = (body: RequestBody): string =>
  typeof body === "string" ? body : body.map((part) => part.toString()).join("");

export type AgentRequest = {
  method: "GET" | "POST";
  url: string;
  body?: RequestBody;
  timeoutMs: number;
  /** The pod's agent credential (server/cluster/agent-credential.ts), sent as `Authorization: Bearer`. */
  credential?: string | null;
};
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
const IDLE_SOCKET_MS = 3500;
const IDLE_SWEEP_MS = 500;

/**
 * node:http's keep-alive pool, with idle connections closed by one sweep instead of a timeout per socket.
 * The pool's own idle timeout (its `timeout` option, or the server's `Keep-Alive: timeout=5` hint) makes
 * each expiring socket look itself up in every agent's free list: O(agents) per socket, as every agent is
 * its own host:port. After a restart of a 2,048-pod job, its 2,048 connections expired together and cost the
 * operator's thread ~2 s (bench:k8s profile, `onTimeout` in node:_http_agent). Here a freed socket keeps no
 * timeout, and a sweep every IDLE_SWEEP_MS destroys those idle past IDLE_SOCKET_MS (or the server's shorter
 * hint, less a second, as node:http would); a destroyed socket leaves the pool by its own close, an O(1)
 * removal.
 */
type ConnectionCallback = Parameters<Agent["createConnection"]>[1];

class SweptAgent extends Agent {
  /** When each free socket is to be closed. */
  private readonly closeAt = new WeakMap<Socket, number>();
  private readonly sweep = setInterval(() => this.closeIdle(), IDLE_SWEEP_MS);

  constructor(options: AgentOptions) {
    super(options);
    this.sweep.unref();
  }

  /** A connection in use has no idle timeout: each request has its own deadline (createHttpTransport). */
  override createConnection(options: ClientRequestArgs, callback?: ConnectionCallback) {
    return super.createConnection({ ...options, timeout: undefined }, callback);
  }

  override keepSocketAlive(socket: Socket): boolean {
    // node:http's returns whether the socket is kept (its type says void).
    const keep = (super.keepSocketAlive as (socket: Socket) => unknown).call(this, socket) === true;
    if (keep) {
      // The idle time node:http chose from `timeout` and a server's shorter keep-alive hint, swept instead.
      const idleMs = Math.min(IDLE_SOCKET_MS, socket.timeout || IDLE_SOCKET_MS);
      socket.setTimeout(0);
      this.closeAt.set(socket, Date.now() + idleMs);
    }
    return keep;
  }

  private closeIdle(): void {
    const now = Date.now();
    for (const sockets of Object.values(this.freeSockets)) {
      for (const socket of [...(sockets ?? [])]) {
        if (now >= (this.closeAt.get(socket as Socket) ?? now)) socket.destroy();
      }
    }
  }
}

/** Writes the body (its parts in order) and ends the request. */
function sendBody(outgoing: ClientRequest, body: RequestBody | undefined): void {
  if (typeof body === "string" || body === undefined) {
    outgoing.end(body);
    return;
  }
  for (const part of body) outgoing.write(part);
  outgoing.end();
}

export function createHttpTransport(): AgentTransport {
  const agent = new SweptAgent({
    keepAlive: true,
    maxSockets: 4,
    maxFreeSockets: 2,
    timeout: IDLE_SOCKET_MS,
  });
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
          : { "content-type": "application/json", "content-length": bodyBytes(req.body) };
      if (req.credential) headers.authorization = `Bearer ${req.credential}`;
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
      sendBody(outgoing, req.body);
    });
}
