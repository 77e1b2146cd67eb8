/** One scaling of an elastic job, as the operator records it when the scaling ends. */
export type ScalingEventRow = {
  id: string;
  jobUid: string;
  namespace: string;
  jobName: string;
  fromReplicas: number;
  toReplicas: number;
  reason: string;
  outcome: "Scaled" | "Failed";
  message: string;
  startedAt: Date;
  finishedAt: Date;
};
