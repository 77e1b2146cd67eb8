/**
 * Names and labels of the Kueue objects HyperPod task governance produces
 * (docs/hyperpod-compatibility.md, "Task governance objects"), and the label that marks the ones Rebound
 * manages (it never changes or deletes any other).
 */
export const KUEUE_GROUP = "kueue.x-k8s.io";
export const KUEUE_VERSION = "v1beta1";
export const KUEUE_API_VERSION = `${KUEUE_GROUP}/${KUEUE_VERSION}`;

export const LABEL_MANAGED_BY = "app.kubernetes.io/managed-by";
export const MANAGED_BY = "rebound";
export const MANAGED_SELECTOR = `${LABEL_MANAGED_BY}=${MANAGED_BY}`;
/** Server-side apply's field manager for everything the sync writes. */
export const FIELD_MANAGER = "rebound-governance";

export const LABEL_MANAGED_QUEUE = "sagemaker.amazonaws.com/sagemaker-managed-queue";
export const LABEL_QUOTA_ALLOCATION = "sagemaker.amazonaws.com/quota-allocation-id";
export const LABEL_QUEUE_NAME = "kueue.x-k8s.io/queue-name";
export const LABEL_PRIORITY_CLASS = "kueue.x-k8s.io/priority-class";
export const LABEL_INSTANCE_TYPE = "node.kubernetes.io/instance-type";

/** All team ClusterQueues share one cohort (HyperPod does not publish its name). */
export const COHORT = "hyperpod-teams";
const NAMESPACE_PREFIX = "hyperpod-ns-";
const PRIORITY_SUFFIX = "-priority";

export const teamNamespace = (team: string): string => `${NAMESPACE_PREFIX}${team}`;
export const clusterQueueName = (team: string): string => `${teamNamespace(team)}-clusterqueue`;
export const localQueueName = (team: string): string => `${teamNamespace(team)}-localqueue`;
export const priorityClassObjectName = (name: string): string => `${name}${PRIORITY_SUFFIX}`;

/** `hyperpod-ns-<team>` → team; null for any other namespace. */
export function teamOfNamespaceName(namespace: string): string | null {
  if (!namespace.startsWith(NAMESPACE_PREFIX)) return null;
  const team = namespace.slice(NAMESPACE_PREFIX.length);
  return team.length > 0 ? team : null;
}
