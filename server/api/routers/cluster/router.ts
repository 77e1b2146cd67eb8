import { createTRPCRouter, protectedProcedure } from "@/server/api/trpc";
import { readableNamespaces } from "@/server/services/access/job-access";
import { clusterNodes } from "@/server/services/jobs/cluster";
import { clusterNodeRowSchema } from "./cluster.schema";

export const clusterRouter = createTRPCRouter({
  /** Nodes with health, GPUs used and free, and the jobs on each that the caller may see. */
  nodes: protectedProcedure
    .output(clusterNodeRowSchema.array())
    .query(async ({ ctx }) => clusterNodes(await ctx.cluster(), await readableNamespaces(ctx.db, ctx.user))),
});
