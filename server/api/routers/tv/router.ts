import { createTRPCRouter } from "@/server/api/trpc";

/** The TV dashboards' data, pushed: for a signed-in user or a share token (viewerProcedure). */
export const tvRouter = createTRPCRouter({});
