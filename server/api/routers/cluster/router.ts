import { createTRPCRouter, protectedProcedure } from "@/server/api/trpc";
import { getClusterSource } from "@/server/services/jobs/gateway";
import { clusterNodes } from "@/server/services/jobs/cluster";

export const clusterRouter = createTRPCRouter({
  /** Nodes with health, GPUs used and free, and the jobs on each. */
  nodes: protectedProcedure.query(async () => clusterNodes(await getClusterSource())),
});
