export { clusterQueueOf, decideAdmissions, localQueueOf } from "./admission";
export { teamCapacities } from "./capacity";
export { checkPriorityClass, priorityOf, rankOf } from "./priority";
export { formatQuantity, parseQuantity } from "./quantity";
export * from "./types";
export { whatIf } from "./what-if";
export { whyPending } from "./why-pending";
export {
  type GovernedJob,
  INSTANCE_TYPE_LABEL,
  PRIORITY_CLASS_LABEL,
  priorityClassOfLabel,
  QuantityError,
  teamOfNamespace,
  workloadOf,
} from "./workload";
