import type { z } from "zod";
import { operatorToken } from "@/server/cluster/operator-credentials";
import type { JobRef } from "@/server/cluster/types";
import { runPolicySchema } from "@/server/domain/job-spec/run-policy.schema";
import {
  API_VERSION_HEADER,
  actionResponseSchema,
  deleteResponseSchema,
  errorResponseSchema,
  historyResponseSchema,
  injectFaultResponseSchema,
  type JobDetailResponse,
  jobDetailResponseSchema,
  jobListResponseSchema,
  logsResponseSchema,
  nodeListResponseSchema,
  OperatorMismatchError,
  parseAnswer,
  runPolicyUpdateResponseSchema,
  shadowPolicyUpdateResponseSchema,
  whyPendingResponseSchema,
} from "@/server/domain/operator-api/contract";
import { rankOutputResponseSchema } from "@/server/domain/operator-api/rank-output";
import type { RestartEventRow } from "@/server/store/restart-events/queries";
import {
  type ClusterSource,
  type HistoryQuery,
  type JobPolicyView,
  SourceError,
  type SourceMode,
} from "./types";

/** A 4xx/5xx answer as a SourceError with the operator's own sentence. */
function refusalOf(status: number, body: unknown, what: string): SourceError {
  const refusal = errorResponseSchema.safeParse(body);
  return new SourceError(
    status,
    refusal.success ? refusal.data.message : `operator answered ${status} to ${what}`,
  );
}

/** The job's policy state with its runPolicy as the operator's schema reads it; null from older operators. */
function policyOf(detail: JobDetailResponse): JobPolicyView | null {
  const runPolicy = runPolicySchema.safeParse(detail.job.spec.runPolicy ?? {});
  return detail.policy && runPolicy.success ? { ...detail.policy, runPolicy: runPolicy.data } : null;
}

/** The history route and query string of a history read. */
function historyPath(query: HistoryQuery, jobPath: (ref: JobRef) => string): string {
  const params = new URLSearchParams({
    series: query.series,
    start: String(Math.round(query.start)),
    end: String(Math.round(query.end)),
  });
  if (query.scope === "job") return `${jobPath(query.ref)}/history?${params}`;
  if (query.namespaces !== "all")
    for (const namespace of query.namespaces) params.append("namespace", namespace);
  return `/api/v1/history?${params}`;
}

/**
 * The operator's live-state API (server/operator/api/routes.ts), over HTTP. Every answer is parsed with the
 * API contract (server/domain/operator-api/contract.ts): an operator of another version is reported as
 * "operator version mismatch", never passed on to a view.
 */
export function createOperatorSource(opts: {
  baseUrl: string;
  mode: SourceMode;
  fetch?: typeof fetch;
  timeoutMs?: number;
  /** The API's bearer token (default: server/cluster/operator-credentials.ts). */
  token?: () => string | undefined;
}): ClusterSource {
  const fetchImpl = opts.fetch ?? fetch;

  const send = async (path: string, init?: RequestInit): Promise<Response> => {
    const headers = new Headers(init?.headers);
    const token = (opts.token ?? operatorToken)();
    if (token) headers.set("authorization", `Bearer ${token}`);
    try {
      return await fetchImpl(`${opts.baseUrl}${path}`, {
        ...init,
        headers,
        signal: AbortSignal.timeout(opts.timeoutMs ?? 5000),
      });
    } catch (error) {
      throw new SourceError(503, `the operator at ${opts.baseUrl} does not answer (${String(error)})`);
    }
  };

  const call = async <T>(schema: z.ZodType<T>, path: string, init?: RequestInit): Promise<T> => {
    const response = await send(path, init);
    const body: unknown = await response.json().catch(() => null);
    const what = `${init?.method ?? "GET"} ${path.split("?")[0]}`;
    if (!response.ok) throw refusalOf(response.status, body, what);
    try {
      return parseAnswer(schema, { body, version: response.headers.get(API_VERSION_HEADER), what });
    } catch (error) {
      throw error instanceof OperatorMismatchError ? new SourceError(502, error.message) : error;
    }
  };

  const jobPath = (ref: JobRef) =>
    `/api/v1/jobs/${encodeURIComponent(ref.namespace)}/${encodeURIComponent(ref.name)}`;
  const sendJson = <T>(method: "POST" | "PUT", schema: z.ZodType<T>, path: string, body: unknown) =>
    call(schema, path, {
      method,
      body: JSON.stringify(body),
      headers: { "content-type": "application/json" },
    });
  const post = <T>(schema: z.ZodType<T>, path: string, body: unknown) => sendJson("POST", schema, path, body);

  return {
    mode: opts.mode,
    // The lists' view: healthy ranks counted by the operator, no per-rank detail (job-summary.ts there).
    jobs: async () => (await call(jobListResponseSchema, "/api/v1/jobs?view=summary")).jobs,
    async job(ref) {
      try {
        const detail = await call(jobDetailResponseSchema, jobPath(ref));
        if (!detail.live) return null;
        return {
          live: detail.live,
          events: detail.events,
          logRules: detail.job.spec.runPolicy?.logMonitoringConfiguration ?? [],
          policy: policyOf(detail),
          restarts: detail.restarts.map(restartRowOf),
        };
      } catch (error) {
        if (error instanceof SourceError && error.status === 404) return null;
        throw error;
      }
    },
    nodes: async () => (await call(nodeListResponseSchema, "/api/v1/nodes")).nodes,
    logs: async (ref, pod, tailLines) =>
      (
        await call(
          logsResponseSchema,
          `${jobPath(ref)}/logs?pod=${encodeURIComponent(pod)}&tail=${tailLines}`,
        )
      ).text,
    rankOutput: async (ref, target) => {
      const query = `pod=${encodeURIComponent(target.pod)}&localRank=${target.localRank}`;
      const {
        pod: _pod,
        localRank: _localRank,
        ...output
      } = await call(rankOutputResponseSchema, `${jobPath(ref)}/rank-output?${query}`);
      return output;
    },
    act: async (ref, action) => {
      await post(actionResponseSchema, `${jobPath(ref)}/actions`, action);
    },
    injectFault: async (ref, fault) => {
      await post(injectFaultResponseSchema, `${jobPath(ref)}/faults`, fault);
    },
    applyRunPolicy: (ref, input) =>
      sendJson("PUT", runPolicyUpdateResponseSchema, `${jobPath(ref)}/run-policy`, input),
    setShadowPolicy: async (ref, input) => {
      await sendJson("PUT", shadowPolicyUpdateResponseSchema, `${jobPath(ref)}/shadow-policy`, input);
    },
    history: (query) => call(historyResponseSchema, historyPath(query, jobPath)),
    async whyPending(ref) {
      try {
        return await call(whyPendingResponseSchema, `${jobPath(ref)}/why-pending`);
      } catch (error) {
        // 501: its admission is Kueue's; 404 for the route itself: an operator older than the route.
        if (error instanceof SourceError && (error.status === 501 || error.status === 404)) return null;
        throw error;
      }
    },
    delete: async (ref, by) => {
      const query = by ? `?by=${encodeURIComponent(by)}` : "";
      await call(deleteResponseSchema, `${jobPath(ref)}${query}`, { method: "DELETE" });
    },
  };
}

/** A restart row as the operator sent it (ISO dates), as the database read gives it. */
function restartRowOf(row: JobDetailResponse["restarts"][number]): RestartEventRow {
  return {
    ...row,
    faultAt: new Date(row.faultAt),
    detectedAt: new Date(row.detectedAt),
    recoveredAt: row.recoveredAt === null ? null : new Date(row.recoveredAt),
  };
}
