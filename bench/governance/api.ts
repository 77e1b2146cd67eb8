import type { ClusterNode, JobRef } from "@/server/cluster/types";
import {
  jobListResponseSchema,
  type LiveJob,
  nodeListResponseSchema,
} from "@/server/domain/operator-api/contract";

/** The operator's API as the benchmark calls it (bearer token; answers parsed with the API contract). */
export type OperatorApi = {
  jobs(): Promise<LiveJob[]>;
  nodes(): Promise<ClusterNode[]>;
  remove(ref: JobRef): Promise<void>;
};

export function operatorApi(opts: { url: string; token: string }): OperatorApi {
  const call = async (route: string, init: RequestInit = {}) => {
    const response = await fetch(`${opts.url}${route}`, {
      ...init,
      headers: { authorization: `Bearer ${opts.token}` },
    });
    if (!response.ok)
      throw new Error(`${init.method ?? "GET"} ${route}: ${response.status} ${await response.text()}`);
    return response.json() as Promise<unknown>;
  };
  return {
    jobs: async () => jobListResponseSchema.parse(await call("/api/v1/jobs")).jobs,
    nodes: async () => nodeListResponseSchema.parse(await call("/api/v1/nodes")).nodes,
    async remove(ref) {
      await call(`/api/v1/jobs/${ref.namespace}/${ref.name}`, { method: "DELETE" });
    },
  };
}
