import { createTRPCRouter } from "@/server/api/trpc";

/** Time series for charts from server/metrics (Prometheus, or the operator's embedded history), pushed. */
export const metricsRouter = createTRPCRouter({});
