import { z } from "zod";
import {
  NODE_ACTIONS,
  NODE_MEANINGS,
  NODE_SIGNAL_SOURCES,
} from "@/server/domain/node-health/signal-table.schema";

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
  verdict: z
    .object({
      meaning: z.enum(NODE_MEANINGS),
      action: z.enum(NODE_ACTIONS),
      source: z.enum(NODE_SIGNAL_SOURCES).nullable(),
      reason: z.string().nullable(),
    })
    .nullable(),
});
