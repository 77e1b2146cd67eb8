import { authRouter } from "@/server/api/routers/auth/router";
import { clusterRouter } from "@/server/api/routers/cluster/router";
import { governanceRouter } from "@/server/api/routers/governance/router";
import { jobsRouter } from "@/server/api/routers/jobs/router";
import { metricsRouter } from "@/server/api/routers/metrics/router";
import { nodeSignalsRouter } from "@/server/api/routers/node-signals/router";
import { notificationsRouter } from "@/server/api/routers/notifications/router";
import { policiesRouter } from "@/server/api/routers/policies/router";
import { setupRouter } from "@/server/api/routers/setup/router";
import { shareTokensRouter } from "@/server/api/routers/share-tokens/router";
import { ssoRouter } from "@/server/api/routers/sso/router";
import { teamsRouter } from "@/server/api/routers/teams/router";
import { tvRouter } from "@/server/api/routers/tv/router";
import { createCallerFactory, createTRPCRouter } from "@/server/api/trpc";

export const appRouter = createTRPCRouter({
  auth: authRouter,
  teams: teamsRouter,
  jobs: jobsRouter,
  cluster: clusterRouter,
  setup: setupRouter,
  governance: governanceRouter,
  policies: policiesRouter,
  shareTokens: shareTokensRouter,
  tv: tvRouter,
  metrics: metricsRouter,
  nodeSignals: nodeSignalsRouter,
  notifications: notificationsRouter,
  sso: ssoRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
