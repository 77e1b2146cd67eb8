import { waitUntil } from "@/server/cluster/kubernetes/testing/kube-env";
import type { JobRef } from "@/server/cluster/types";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import type { BenchEnvironment } from "./environment";
import type { BenchJob } from "./kube";

/** The measured job: one pod per node, a rank per GPU, the demo job's policies (stand-in agents run it). */
export const JOB_NAME = "bench-k8s";

export function runningSince(job: BenchJob): number | null {
  const condition = job.status?.conditions?.find((candidate) => candidate.type === "Running");
  if (condition?.status !== "True") return null;
  return Date.parse(condition.lastTransitionTime ?? "") || 0;
}

/** How many ranks the operator's live state reports running (GET /api/v1/jobs). */
export async function liveRanksRunning(env: BenchEnvironment, ref: JobRef): Promise<number | null> {
  const response = await fetch(`${env.operator.url}/api/v1/jobs`, {
    headers: { authorization: `Bearer ${env.operator.token}` },
  });
  if (!response.ok) return null;
  const { jobs } = (await response.json()) as {
    jobs: { namespace: string; name: string; ranksRunning: number }[];
  };
  return jobs.find((job) => job.namespace === ref.namespace && job.name === ref.name)?.ranksRunning ?? null;
}

/** Creates the job and waits until its Running condition is True; returns the ref and when it was created. */
export async function startJob(
  env: BenchEnvironment,
  shape: {
    nodes: number;
    gpusPerNode: number;
    timeoutMs: number;
    annotations?: Record<string, string>;
    restartsBeforeFullRestart?: number;
  },
): Promise<{ ref: JobRef; createdAt: number; runningAt: number }> {
  const yaml = demoJobYaml({
    name: JOB_NAME,
    nodes: shape.nodes,
    ranks: shape.gpusPerNode,
    gpusPerPod: shape.gpusPerNode,
    annotations: shape.annotations,
    restartsBeforeFullRestart: shape.restartsBeforeFullRestart,
  });
  const createdAt = Date.now();
  const ref = await env.kube.createJob(yaml);
  const since = await waitUntil(
    `job ${JOB_NAME} to be Running`,
    async () => {
      const at = runningSince(await env.kube.readJob(ref));
      if (at === null) await new Promise((resolve) => setTimeout(resolve, 200));
      return at;
    },
    shape.timeoutMs,
  );
  // The condition's lastTransitionTime is the operator's clock (this machine's), to the millisecond.
  return { ref, createdAt, runningAt: since > createdAt ? since : Date.now() };
}
