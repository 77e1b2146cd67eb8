import { type CoreV1Api, PatchStrategy, setHeaderOptions, type V1Pod } from "@kubernetes/client-node";
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

/** Writes the pod's agent URL annotation, where the operator looks for the agent. */
export async function annotateAgentUrl(core: CoreV1Api, pod: V1Pod, url: string): Promise<void> {
  await core.patchNamespacedPod(
    {
      namespace: pod.metadata?.namespace ?? "",
      name: pod.metadata?.name ?? "",
      body: { metadata: { annotations: { [ANNOTATION_AGENT_URL]: url } } },
    },
    MERGE_PATCH,
  );
}
