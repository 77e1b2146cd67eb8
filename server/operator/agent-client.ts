import { z } from "zod";
import {
  type AgentStatus,
  agentStatusSchema,
  type StartRequestInput,
  type stopRequestSchema,
} from "@/server/domain/agent-api/protocol";
import {
  type AgentRequest,
  type AgentTransport,
  createHttpTransport,
  type RequestBody,
} from "./agent-transport";

/**
 * The operator's side of the HyperPod agent protocol (docs/hyperpod-compatibility.md, "The agent protocol"),
 * on the shared contract in server/domain/agent-api/protocol.ts (it also parses the unmodified hyperpod-elastic-agent,
 * which has no `ranks`). An answer we cannot read is reported as `invalid-response`, never thrown past the
 * caller.
 */
export type { AgentStatus, RankStatus as AgentRank } from "@/server/domain/agent-api/protocol";
export type StartRequestBody = StartRequestInput;
export type StopRequestBody = z.input<typeof stopRequestSchema>;

export type AgentCallError = {
  cause: "timeout" | "unreachable" | "invalid-response" | "rejected";
  detail: string;
};
export type AgentResult<T> = { ok: true; value: T } | { ok: false; error: AgentCallError };

/**
 * The credential the operator gave the pod whose agent listens at `agentUrl` (server/cluster/
 * agent-credential.ts), sent on every call; null: none (an agent started without one, as in the agent's
 * own tests). The unchanged hyperpod-elastic-agent ignores the header.
 */
export type CredentialFor = (agentUrl: string) => string | null;

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
type WithWireText = { [WIRE_TEXT]?: () => RequestBody };

export function withWireText<T extends object>(body: T, text: () => RequestBody): T {
  Object.defineProperty(body, WIRE_TEXT, { value: text, enumerable: false });
  return body;
}

function wireText(body: unknown): RequestBody | undefined {
  if (body === undefined) return undefined;
  const prepared = typeof body === "object" && body !== null ? (body as WithWireText)[WIRE_TEXT] : undefined;
  return prepared ? prepared() : JSON.stringify(body);
}

const post = (
  transport: AgentTransport,
  req: { url: string; body: unknown; timeoutMs: number; credential: string | null },
) =>
  call(transport, {
    method: "POST",
    url: req.url,
    body: wireText(req.body),
    timeoutMs: req.timeoutMs,
    ...(req.credential ? { credential: req.credential } : {}),
  });

/** HyperPod's agent sends the state lower-case; accept an upper-case one from other agent builds too. */
function lowerCaseState(value: unknown): unknown {
  if (typeof value !== "object" || value === null || !("status" in value) || typeof value.status !== "string")
    return value;
  return { ...value, status: value.status.toLowerCase() };
}

/** The transport is injectable so the contract test can record every exchange. */
export function createAgentClient(opts: {
  timeoutMs: number;
  transport?: AgentTransport;
  /** The credential of each pod's agent (the back end's); absent: none sent. */
  credentialFor?: CredentialFor;
}) {
  const transport = opts.transport ?? createHttpTransport();
  const credentialOf = (base: string) => opts.credentialFor?.(base) ?? null;
  const withCredential = (base: string) => {
    const credential = credentialOf(base);
    return credential ? { credential } : {};
  };
  const send = (base: string, path: string, body: unknown) =>
    post(transport, {
      url: `${base}${path}`,
      body,
      timeoutMs: opts.timeoutMs,
      credential: credentialOf(base),
    });
  return {
    async status(base: string): Promise<AgentResult<AgentStatus>> {
      const result = await call(transport, {
        method: "GET",
        url: `${base}/status`,
        timeoutMs: opts.timeoutMs,
        ...withCredential(base),
      });
      if (!result.ok) return result;
      const parsed = agentStatusSchema.safeParse(lowerCaseState(result.value));
      if (!parsed.success) {
        return { ok: false, error: { cause: "invalid-response", detail: z.prettifyError(parsed.error) } };
      }
      return { ok: true, value: parsed.data };
    },
    start: (base: string, body: StartRequestBody) => send(base, "/start", body),
    stop: (base: string, body: StopRequestBody) => send(base, "/stop", body),
    update: (base: string, body: Omit<StartRequestBody, "progress">) => send(base, "/update", body),
    shutdown: (base: string) => send(base, "/shutdown", undefined),
  };
}

export type AgentClient = ReturnType<typeof createAgentClient>;
