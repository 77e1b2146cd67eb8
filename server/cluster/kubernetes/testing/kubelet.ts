import { type CoreV1Api, PatchStrategy, setHeaderOptions, type V1Pod } from "@kubernetes/client-node";
import { statusCode } from "../api-calls";
import { ANNOTATION_AGENT_URL } from "../objects";

/**
 * What the two test stand-ins for a kubelet share (pod-agents.ts runs the real agent per pod,
 * stand-in-agents.ts an in-process stand-in): which pods to run, which to stop, and how a pod's agent
 * makes itself known to the operator.
 */

/** Bound to a node: a kubelet would start it. */
export const isBound = (pod: V1Pod): boolean => !!pod.spec?.nodeName;

/** Deleted, being deleted, or finished: its agent should stop. */
export const isGone = (type: string, pod: V1Pod): boolean =>
  type === "DELETED" ||
  !!pod.metadata?.deletionTimestamp ||
  pod.status?.phase === "Failed" ||
  pod.status?.phase === "Succeeded";

const MERGE_PATCH = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

/** The pod is gone (404) or the name holds another pod now (409, 422: its uid differs). */
const NOT_THIS_POD = new Set([404, 409, 422]);

/** Tries at annotating a pod with its agent's address (200 ms, 400 ms, … apart). */
const ANNOTATE_ATTEMPTS = 8;

/**
 * Writes the pod's agent URL annotation, where the operator looks for the agent. Retried as a kubelet
 * retries a status update: a 429 while the apiserver's storage re-initializes, or a dropped connection, must
 * not leave a running agent that the operator cannot find. A pod gone or replaced under its name ends it (the
 * replacement is served on its own), as does `stopped()`.
 */
export async function annotateAgentUrl(
  core: CoreV1Api,
  pod: V1Pod,
  url: string,
  stopped: () => boolean = () => false,
): Promise<void> {
  const request = {
    namespace: pod.metadata?.namespace ?? "",
    name: pod.metadata?.name ?? "",
    // The uid makes the write this pod's only: a replacement of the same name refuses it.
    body: { metadata: { uid: pod.metadata?.uid, annotations: { [ANNOTATION_AGENT_URL]: url } } },
  };
  for (let attempt = 1; ; attempt += 1) {
    try {
      await core.patchNamespacedPod(request, MERGE_PATCH);
      return;
    } catch (error) {
      if (stopped() || NOT_THIS_POD.has(statusCode(error) ?? 0) || attempt >= ANNOTATE_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}
