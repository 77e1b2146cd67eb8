import { describeName, isValidName } from "@/server/cluster/names";
import type { ClusterBackend, JobRef } from "@/server/cluster/types";
import { jobKey } from "@/server/cluster/types";
import { expectedPods } from "@/server/operator/reconcilers/observe";
import { HttpError } from "./http-utils";

const SHOWN = 5;

/**
 * The names a job's logs may be asked for: the pods the back end has for it now, and every pod its spec
 * gives it (`<job>-<replicaSpec>-<index>`). A replaced or cleaned-up pod keeps its name, so the second set
 * reaches a past pod's log where the back end still has one (the local back end keeps agent.log; on
 * Kubernetes a deleted pod's log is gone and reads as empty). Nothing else: not another job's pod, not a path.
 */
async function podsOf(backend: ClusterBackend, ref: JobRef): Promise<string[]> {
  const job = await backend.getJob(ref);
  if (!job) throw new HttpError(404, `job ${jobKey(ref)} not found`);
  const current = (await backend.listPods(ref)).map((pod) => pod.name);
  return [...new Set([...current, ...expectedPods(job).map((pod) => pod.name)])];
}

/** The `pod` query value, checked: a pod name (400 otherwise) and one of the job's pods (400 otherwise). */
export async function podOfJob(backend: ClusterBackend, ref: JobRef, pod: string | null): Promise<string> {
  if (pod === null || !isValidName("pod", pod))
    throw new HttpError(
      400,
      `pod: expected a pod name (${describeName("pod")}), got ${JSON.stringify(pod ?? "")}`,
    );
  const pods = await podsOf(backend, ref);
  if (pods.includes(pod)) return pod;
  const shown = pods.slice(0, SHOWN).join(", ") + (pods.length > SHOWN ? `, … (${pods.length} in all)` : "");
  throw new HttpError(
    400,
    `pod: ${pod} is not one of job ${jobKey(ref)}'s pods (expected one of: ${shown || "none"})`,
  );
}
