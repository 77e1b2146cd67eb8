import { z } from "zod";
import {
  type AgentStatus,
  agentStatusSchema,
  type StartRequestInput,
  type stopRequestSchema,
} from "@/server/agent/protocol";
import { type AgentRequest, type AgentTransport, createHttpTransport } from "./agent-transport";

/**
 * The operator's side of the HyperPod agent protocol (reference §2.2), on the shared contract in
 * server/agent/protocol.ts (it also parses the unmodified hyperpod-elastic-agent, which has no `ranks`).
 * An answer we cannot read is reported as `invalid-response`, never thrown past the caller.
 */
export type { AgentStatus, RankStatus as AgentRank } from "@/server/agent/protocol";
export type StartRequestBody = StartRequestInput;
export type StopRequestBody = z.input<typeof stopRequestSchema>;

export type AgentCallError = {
  cause: "timeout" | "unreachable" | "invalid-response" | "rejected";
  detail: string;
};
export type AgentResult<T> = { ok: true; value: T } | { ok: false; error: AgentCallError };

async function call(transport: AgentTransport, req: AgentRequest): Promise<AgentResult<unknown>> {
  const sent = await transport(req);
  if (!sent.ok) return sent;
  const { status, text } = sent.value;
  if (status < 200 || status > 299) {
    return { ok: false, error: { cause: "rejected", detail: `HTTP ${status}: ${text.slice(0, 500)}` } };
  }
  try {
    return { ok: true, value: text === "" ? null : (JSON.parse(text) as unknown) };
  } catch {
    return { ok: false, error: { cause: "invalid-response", detail: `not JSON: ${text.slice(0, 200)}` } };
  }
}

/**
 * A body whose JSON text its builder already has, in parts shared with other bodies (the job-wide part of
 * every /start of one attempt, steps.ts): sent as that text, never serialised again. The text is kept off
 * the object's enumerable keys, so the body is still the plain protocol object to everyone who reads it.
 */
const WIRE_TEXT = Symbol("wire text");
type WithWireText = { [WIRE_TEXT]?: () => string };

export function withWireText<T extends object>(body: T, text: () => string): T {
  Object.defineProperty(body, WIRE_TEXT, { value: text, enumerable: false });
  return body;
}

function wireText(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  const prepared = typeof body === "object" && body !== null ? (body as WithWireText)[WIRE_TEXT] : undefined;
  return prepared ? prepared() : JSON.stringify(body);
}

const post = (transport: AgentTransport, req: { url: string; body: unknown; timeoutMs: number }) =>
  call(transport, { method: "POST", url: req.url, body: wireText(req.body), timeoutMs: req.timeoutMs });

/** The reference sends the state lower-case; accept an upper-case one from other agent builds too. */
function lowerCaseState(value: unknown): unknown {
  if (typeof value !== "object" || value === null || !("status" in value) || typeof value.status !== "string")
    return value;
  return { ...value, status: value.status.toLowerCase() };
}

/** The transport is injectable so the contract test can record every exchange. */
export function createAgentClient(opts: { timeoutMs: number; transport?: AgentTransport }) {
  const transport = opts.transport ?? createHttpTransport();
  return {
    async status(base: string): Promise<AgentResult<AgentStatus>> {
      const result = await call(transport, {
        method: "GET",
        url: `${base}/status`,
        timeoutMs: opts.timeoutMs,
      });
      if (!result.ok) return result;
      const parsed = agentStatusSchema.safeParse(lowerCaseState(result.value));
      if (!parsed.success) {
        return { ok: false, error: { cause: "invalid-response", detail: z.prettifyError(parsed.error) } };
      }
      return { ok: true, value: parsed.data };
    },
    start: (base: string, body: StartRequestBody) =>
      post(transport, { url: `${base}/start`, body, timeoutMs: opts.timeoutMs }),
    stop: (base: string, body: StopRequestBody) =>
      post(transport, { url: `${base}/stop`, body, timeoutMs: opts.timeoutMs }),
    update: (base: string, body: Omit<StartRequestBody, "progress">) =>
      post(transport, { url: `${base}/update`, body, timeoutMs: opts.timeoutMs }),
    shutdown: (base: string) =>
      post(transport, { url: `${base}/shutdown`, body: undefined, timeoutMs: opts.timeoutMs }),
  };
}

export type AgentClient = ReturnType<typeof createAgentClient>;
