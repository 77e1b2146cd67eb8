import type { ClusterEvent, ClusterNode, JobRef } from "@/server/cluster/types";
import type { LiveJob } from "@/server/operator/live-state";
import { type ClusterSource, type JobDetail, SourceError, type SourceMode } from "./types";

/** The operator's live-state API (server/operator/api/routes.ts), over HTTP. */
export function createOperatorSource(opts: {
  baseUrl: string;
  mode: SourceMode;
  fetch?: typeof fetch;
  timeoutMs?: number;
}): ClusterSource {
  const fetchImpl = opts.fetch ?? fetch;
  const call = async <T>(path: string, init?: RequestInit): Promise<T> => {
    let response: Response;
    try {
      response = await fetchImpl(`${opts.baseUrl}${path}`, {
        ...init,
        signal: AbortSignal.timeout(opts.timeoutMs ?? 5000),
      });
    } catch (error) {
      throw new SourceError(503, `the operator at ${opts.baseUrl} does not answer (${String(error)})`);
    }
    const body = (await response.json().catch(() => ({}))) as T & { message?: string };
    if (!response.ok)
      throw new SourceError(response.status, body.message ?? `operator answered ${response.status}`);
    return body;
  };
  const jobPath = (ref: JobRef) =>
    `/api/v1/jobs/${encodeURIComponent(ref.namespace)}/${encodeURIComponent(ref.name)}`;
  const post = (path: string, body: unknown) =>
    call(path, {
      method: "POST",
      body: JSON.stringify(body),
      headers: { "content-type": "application/json" },
    });

  return {
    mode: opts.mode,
    jobs: async () => (await call<{ jobs: LiveJob[] }>("/api/v1/jobs")).jobs,
    async job(ref) {
      try {
        const detail = await call<{
          live: LiveJob | null;
          events: ClusterEvent[];
          job: { spec?: { runPolicy?: { logMonitoringConfiguration?: JobDetail["logRules"] } } };
        }>(jobPath(ref));
        if (!detail.live) return null;
        return {
          live: detail.live,
          events: detail.events,
          logRules: detail.job.spec?.runPolicy?.logMonitoringConfiguration ?? [],
        };
      } catch (error) {
        if (error instanceof SourceError && error.status === 404) return null;
        throw error;
      }
    },
    nodes: async () => (await call<{ nodes: ClusterNode[] }>("/api/v1/nodes")).nodes,
    logs: async (ref, pod, tailLines) =>
      (await call<{ text: string }>(`${jobPath(ref)}/logs?pod=${encodeURIComponent(pod)}&tail=${tailLines}`))
        .text,
    act: async (ref, action) => {
      await post(`${jobPath(ref)}/actions`, action);
    },
    injectFault: async (ref, fault) => {
      await post(`${jobPath(ref)}/faults`, fault);
    },
    delete: async (ref) => {
      await call(jobPath(ref), { method: "DELETE" });
    },
  };
}
