export { clusterGoodput } from "./cluster-goodput";
export {
  type FaultFacts,
  type FaultLoss,
  type FaultOutcome,
  faultLoss,
  hasProgress,
  type LossBasis,
} from "./fault-loss";
export { faultLosses, type GoodputBasis, type JobGoodput, jobGoodput, unionLength } from "./job-goodput";
