import { readFileSync } from "node:fs";
import { type JobListResponse, jobListResponseSchema } from "@/server/domain/operator-api/contract";

/** The operator's API as the soak uses it: with the operator's token, as the CLI and the console call it. */
export type ChaosApi = ReturnType<typeof chaosApi>;

export function chaosApi(opts: { url: () => string; token: () => string }) {
  const call = async (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set("authorization", `Bearer ${opts.token()}`);
    return fetch(`${opts.url()}${path}`, { ...init, headers, signal: AbortSignal.timeout(10_000) });
  };
  return {
    async jobs(): Promise<JobListResponse["jobs"]> {
      const response = await call("/api/v1/jobs");
      return jobListResponseSchema.parse(await response.json()).jobs;
    },
    async submit(file: string, rename?: { from: string; to: string }): Promise<number> {
      let yaml = readFileSync(file, "utf8");
      if (rename) yaml = yaml.replace(`name: ${rename.from}`, `name: ${rename.to}`);
      const response = await call("/api/v1/jobs", {
        method: "POST",
        body: yaml,
        headers: { "content-type": "application/yaml" },
      });
      return response.status;
    },
    async submitYaml(yaml: string): Promise<number> {
      const response = await call("/api/v1/jobs", {
        method: "POST",
        body: yaml,
        headers: { "content-type": "application/yaml" },
      });
      return response.status;
    },
    async remove(namespace: string, name: string): Promise<number> {
      return (await call(`/api/v1/jobs/${namespace}/${name}`, { method: "DELETE" })).status;
    },
    async exists(namespace: string, name: string): Promise<boolean> {
      return (await call(`/api/v1/jobs/${namespace}/${name}`)).status === 200;
    },
    async fault(
      job: { namespace: string; name: string },
      fault: { kind: string; rank: number },
    ): Promise<number> {
      const response = await call(`/api/v1/jobs/${job.namespace}/${job.name}/faults`, {
        method: "POST",
        body: JSON.stringify(fault),
        headers: { "content-type": "application/json" },
      });
      return response.status;
    },
  };
}
