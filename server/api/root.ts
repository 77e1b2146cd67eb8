import { authRouter } from "@/server/api/routers/auth/router";
import { teamsRouter } from "@/server/api/routers/teams/router";
import { createCallerFactory, createTRPCRouter } from "@/server/api/trpc";

export const appRouter = createTRPCRouter({
  auth: authRouter,
  teams: teamsRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
