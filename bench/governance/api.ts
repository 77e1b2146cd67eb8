import type { ClusterNode, JobRef } from "@/server/cluster/types";
import {
  jobListResponseSchema,
  type LiveJob,
  nodeListResponseSchema,
  type WhyPendingResponse,
  whyPendingResponseSchema,
} from "@/server/domain/operator-api/contract";

/** The operator's API as the benchmark calls it (bearer token; answers parsed with the API contract). */
export type OperatorApi = {
  jobs(): Promise<LiveJob[]>;
  nodes(): Promise<ClusterNode[]>;
  remove(ref: JobRef): Promise<void>;
  /** GET …/why-pending, parsed with the contract as the console's operator gateway parses it. */
  whyPending(ref: JobRef): Promise<WhyPendingResponse>;
};

export function operatorApi(opts: { url: string; token: string }): OperatorApi {
  const send = (route: string, init: RequestInit) =>
    fetch(`${opts.url}${route}`, { ...init, headers: { authorization: `Bearer ${opts.token}` } });
  const call = async (route: string, init: RequestInit = {}) => {
    // A GET on a kept-alive connection the server closes at that moment (its 5 s idle timeout) fails
    // before it is sent: asked again once.
    const response = await send(route, init).catch((error: unknown) => {
      if (init.method !== undefined) throw error;
      return send(route, init);
    });
    if (!response.ok)
      throw new Error(`${init.method ?? "GET"} ${route}: ${response.status} ${await response.text()}`);
    return response.json() as Promise<unknown>;
  };
  return {
    jobs: async () => jobListResponseSchema.parse(await call("/api/v1/jobs")).jobs,
    nodes: async () => nodeListResponseSchema.parse(await call("/api/v1/nodes")).nodes,
    whyPending: async (ref) =>
      whyPendingResponseSchema.parse(await call(`/api/v1/jobs/${ref.namespace}/${ref.name}/why-pending`)),
    async remove(ref) {
      await call(`/api/v1/jobs/${ref.namespace}/${ref.name}`, { method: "DELETE" });
    },
  };
}
