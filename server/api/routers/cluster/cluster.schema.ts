import { z } from "zod";

/** A row of the cluster page: a node, its GPUs in use, and the jobs on it the caller may see. */
export const clusterNodeRowSchema = z.object({
  name: z.string(),
  health: z.string(),
  ready: z.boolean(),
  healthy: z.boolean(),
  gpus: z.number(),
  gpusUsed: z.number(),
  pods: z.array(z.string()),
  jobs: z.array(z.string()),
});
