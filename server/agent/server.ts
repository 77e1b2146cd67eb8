import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { z } from "zod";
import {
  type ErrorBody,
  startRequestSchema,
  stopRequestSchema,
  updateRequestSchema,
} from "@/server/domain/agent-api/protocol";
import type { Logger } from "../log";
import { PROMETHEUS_CONTENT_TYPE } from "../metrics/exposition";
import type { Agent, CommandResult } from "./agent";
import { agentProcessEnv } from "./env";
import { bodyValue, readJsonBody } from "./http-body";
import { jsonErrorDetail, parseBody } from "./validation-detail";
import { createStatusWatch, isWatchRequest } from "./watch";

/**
 * The agent's HTTP API (docs/hyperpod-compatibility.md, "The agent protocol") on node:http: POST /start /stop
 * /update /shutdown, GET /status, plus GET /metrics (Prometheus) and GET /healthz. Errors follow FastAPI: 422
 * `{detail: [{type, loc, msg}]}` for a body that does not validate (nothing changes), 409 `{detail}` for a
 * command the current state refuses, 413 for a body over 1 MiB, 404/405 for unknown routes. Every POST
 * answers with the /status body.
 *
 * Rebound's own addition: GET /rebound/v1/watch pushes /status lines and heartbeats to the operator
 * (server/agent/watch.ts, server/operator/presence/README.md). REBOUND_AGENT_WATCH=0 turns it off (404, as
 * the unchanged hyperpod-elastic-agent answers): the operator then polls /status.
 *
 * Rebound's other addition: given a credential (REBOUND_AGENT_CREDENTIAL, from the operator, see
 * server/cluster/agent-credential.ts), every call but GET /healthz and GET /metrics (probes and Prometheus
 * read those) must carry `Authorization: Bearer <credential>`; without it, or with another, the answer is
 * 401 before the body is read, and nothing changes. Without a credential the agent answers anyone, as the
 * unchanged hyperpod-elastic-agent does.
 */

type Reply = { status: number; body: unknown } | { status: number; text: string; contentType: string };
type Handler = (request: IncomingMessage) => Promise<Reply> | Reply;
type Route = { method: "GET" | "POST"; handle: Handler };

const detail = (status: number, message: string): Reply => ({
  status,
  body: { detail: message } satisfies ErrorBody,
});

async function withBody<S extends z.ZodType>(
  request: IncomingMessage,
  input: { schema: S; optional: boolean; run: (value: z.output<S>) => Reply },
): Promise<Reply> {
  const read = await readJsonBody(request);
  switch (read.kind) {
    case "too-large":
      return detail(413, "Request body too large (limit 1 MiB)");
    case "invalid":
      return { status: 422, body: { detail: jsonErrorDetail(read.reason) } };
    case "empty":
    case "json": {
      const parsed = parseBody(input.schema, bodyValue(read, input.optional));
      return parsed.ok ? input.run(parsed.value) : { status: 422, body: { detail: parsed.detail } };
    }
    default:
      return read satisfies never;
  }
}

function routes(agent: Agent): Record<string, Route> {
  const answer = (result: CommandResult): Reply =>
    result.ok ? { status: 200, body: agent.status() } : detail(result.status, result.detail);
  return {
    "/status": { method: "GET", handle: () => ({ status: 200, body: agent.status() }) },
    "/healthz": { method: "GET", handle: () => ({ status: 200, body: { status: "ok" } }) },
    "/metrics": {
      method: "GET",
      handle: async () => ({
        status: 200,
        text: await agent.metrics(),
        contentType: PROMETHEUS_CONTENT_TYPE,
      }),
    },
    "/start": {
      method: "POST",
      handle: (request) =>
        withBody(request, {
          schema: startRequestSchema,
          optional: false,
          run: (body) => answer(agent.start(body)),
        }),
    },
    "/update": {
      method: "POST",
      handle: (request) =>
        withBody(request, {
          schema: updateRequestSchema,
          optional: false,
          run: (body) => answer(agent.update(body)),
        }),
    },
    "/stop": {
      method: "POST",
      handle: (request) =>
        withBody(request, {
          schema: stopRequestSchema,
          optional: true,
          run: (body) => answer(agent.stop(body)),
        }),
    },
    "/shutdown": { method: "POST", handle: (request) => drain(request).then(() => answer(agent.shutdown())) },
  };
}

function drain(request: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    request.on("end", resolve);
    request.on("error", () => resolve());
    request.resume();
  });
}

function send(response: ServerResponse, reply: Reply): void {
  const isText = "text" in reply;
  const payload = isText ? reply.text : JSON.stringify(reply.body);
  response.writeHead(reply.status, {
    "content-type": isText ? reply.contentType : "application/json",
    "content-length": Buffer.byteLength(payload),
  });
  response.end(payload);
}

async function dispatch(table: Record<string, Route>, request: IncomingMessage): Promise<Reply> {
  const pathname = new URL(request.url ?? "/", "http://agent").pathname;
  const route = Object.hasOwn(table, pathname) ? table[pathname] : undefined;
  if (route === undefined) return detail(404, "Not Found");
  if (route.method !== request.method) return detail(405, "Method Not Allowed");
  return route.handle(request);
}

/** Routes anyone who reaches the port may call: a kubelet's probes and Prometheus' scrapes carry nothing. */
const OPEN_PATHS: ReadonlySet<string> = new Set(["/healthz", "/metrics"]);

const digest = (text: string) => createHash("sha256").update(text).digest();

/** Whether `request` may go on: an open route, or the credential in its Authorization header. */
function authorizer(credential: string | null): (request: IncomingMessage) => boolean {
  if (credential === null) return () => true;
  // Digests of equal length, compared in constant time: the answer's timing tells nothing of the credential.
  const expected = digest(`Bearer ${credential}`);
  return (request) => {
    if (request.method === "GET" && OPEN_PATHS.has(new URL(request.url ?? "/", "http://agent").pathname))
      return true;
    const given = request.headers.authorization;
    return typeof given === "string" && timingSafeEqual(digest(given), expected);
  };
}

const UNAUTHORIZED = detail(401, "Unauthorized: this agent answers only its operator");

/** On unless REBOUND_AGENT_WATCH is "0" or "false". */
function watchFromEnv(): boolean {
  const value = agentProcessEnv().REBOUND_AGENT_WATCH;
  return value !== "0" && value !== "false";
}

export function createAgentServer(input: {
  agent: Agent;
  logger: Logger;
  watch?: boolean;
  /** Asked of every call but /healthz and /metrics; null or absent: none asked. */
  credential?: string | null;
}): Server {
  const { agent, logger } = input;
  const table = routes(agent);
  const allowed = authorizer(input.credential ?? null);
  const watch = (input.watch ?? watchFromEnv()) ? createStatusWatch({ status: () => agent.status() }) : null;
  const server = createServer((request, response) => {
    if (!allowed(request)) {
      logger.warn("refused a call without the operator's credential", {
        method: request.method,
        path: request.url,
        from: request.socket.remoteAddress,
      });
      // The body is not read: close the connection after the answer rather than drain what a stranger sends.
      response.setHeader("www-authenticate", "Bearer");
      response.setHeader("connection", "close");
      return send(response, UNAUTHORIZED);
    }
    if (watch && isWatchRequest(request)) return watch.attach(request, response);
    dispatch(table, request)
      .catch((error: unknown) => {
        logger.error("request failed", { path: request.url, error: String(error) });
        return detail(500, "Internal Server Error");
      })
      .then((reply) => {
        if (request.method !== "GET")
          logger.info("request", { method: request.method, path: request.url, status: reply.status });
        send(response, reply);
        if (request.method === "POST") watch?.poke();
      });
  });
  // Watch streams never end by themselves: a closing server ends them, or close() would wait on them.
  const close = server.close.bind(server);
  server.close = ((callback?: (error?: Error) => void) => {
    watch?.stop();
    return close(callback);
  }) as Server["close"];
  return server;
}

/** Listens and resolves with the bound port (useful with port 0). */
export function listen(server: Server, input: { host: string; port: number }): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(input.port, input.host, () => {
      server.off("error", reject);
      const address = server.address();
      resolve(typeof address === "object" && address !== null ? address.port : input.port);
    });
  });
}
