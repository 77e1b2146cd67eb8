import type { z } from "zod";
import { bodyValue, parseJson } from "@/server/agent/http-body";
import { type BodyParse, parseBody } from "@/server/agent/validation-detail";

/**
 * How the stand-in agents read a /start or /update body: as the real agent does (JSON, then the protocol's
 * schema), with the job-wide part of the body read once per text instead of once per agent.
 *
 * Why: the operator sends every agent of one attempt `{"rank":N,` + the same job-wide text
 * (server/operator/reconcilers/steps.ts). A real agent parses and checks its own body on its own machine:
 * ~3.4 ms at 2,048 pods (64 kB of rankIps), nothing. The stand-ins are 2,048 agents in ONE process, where
 * the same work done 2,048 times was ~7 s of one core per restart, during which every stand-in's
 * heartbeats stopped at once: a stall no job of real agents has, which bench:k8s then measured as the
 * operator's (slow restarts, and a frozen agent judged leniently because thousands were overdue with it).
 *
 * So a body of that shape has its job-wide part parsed and checked once (with rank 0 in place of N) and
 * its rank, the only per-agent field, checked on each body. The answer is the one a full read would give
 * (an invalid job-wide part gets the same 422 detail). A body of any other shape is read in full.
 */

const RANK_PREFIX = /^\{"rank":(0|[1-9]\d{0,8}),/;
/** Job-wide texts kept per schema: one attempt's, and the one before it while agents still get it. */
const KEPT = 4;

/** What reading a body gave: its parse, or why it is not JSON. */
export type BodyReading<T> = { kind: "read"; parse: BodyParse<T> } | { kind: "invalid"; reason: string };

export function createBodyReader<S extends z.ZodType>(schema: S) {
  type Out = z.output<S>;
  /** Per job-wide text: its parse with rank 0, or null when it is not JSON. */
  const shared = new Map<string, BodyParse<Out> | null>();
  let sharedReads = 0;

  /** The real agent's read (server/agent/server.ts). */
  const full = (text: string, optional: boolean): BodyReading<Out> => {
    const json = parseJson(text);
    if (json.kind === "invalid") return json;
    return { kind: "read", parse: parseBody(schema, bodyValue(json, optional)) };
  };

  const jobWide = (rest: string): BodyParse<Out> | null => {
    const cached = shared.get(rest);
    if (cached !== undefined) return cached;
    const json = parseJson(`{"rank":0,${rest}`);
    const parse = json.kind === "json" ? parseBody(schema, json.value) : null;
    shared.set(rest, parse);
    const oldest = shared.keys().next().value;
    if (shared.size > KEPT && oldest !== undefined) shared.delete(oldest);
    return parse;
  };

  return {
    read(text: string, optional = false): BodyReading<Out> {
      const match = RANK_PREFIX.exec(text);
      if (!match) return full(text, optional);
      const part = jobWide(text.slice(match[0].length));
      // Not JSON, or its job-wide part is invalid: the full read says where, with this body's own rank.
      if (!part?.ok) return full(text, optional);
      sharedReads += 1;
      const value = { ...(part.value as Record<string, unknown>), rank: Number(match[1]) } as Out;
      return { kind: "read", parse: { ok: true, value } };
    },
    /** Bodies answered from a job-wide part read before (tests). */
    sharedReads: () => sharedReads,
  };
}
