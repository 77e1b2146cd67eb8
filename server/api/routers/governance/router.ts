import { createTRPCRouter } from "@/server/api/trpc";
import {
  auditableTeams,
  canEditMembers,
  canEditQuota,
  canEditScheduler,
  canReadAudit,
  canReadGovernance,
} from "@/server/domain/access/governance";
import { AppError } from "@/server/errors";
import { listGovernanceAudit } from "@/server/services/governance/audit";
import { capacityHistory } from "@/server/services/governance/capacity-history";
import {
  auditInputSchema,
  capacityHistoryInputSchema,
  jobKeyInputSchema,
  teamInputSchema,
  whatIfInputSchema,
} from "@/server/services/governance/governance.schema";
import { readClusterCapacity } from "@/server/services/governance/overcommit";
import { governanceOverview, liveSnapshot } from "@/server/services/governance/overview";
import { queueOf } from "@/server/services/governance/queue";
import { jobKey } from "@/server/services/governance/snapshot";
import { askWhyPending, whatIfView } from "@/server/services/governance/what-if";
import { watchGovernance } from "@/server/services/live/governance-streams";
import { withTrpcErrors } from "../jobs/live-errors";
import { membersRouter } from "./members-router";
import { forbidden, governanceProcedure, teamIdByName } from "./procedure";
import { quotaRouter } from "./quota-router";
import { schedulerRouter } from "./scheduler-router";

/**
 * Task governance (issue 11): quotas, the scheduler config, members' roles, queues, why a job is pending, what
 * a change would do, capacity over time and the audit. Every mutation is authorised here through
 * server/domain/access/governance.ts and audited by its service.
 */
export const governanceRouter = createTRPCRouter({
  overview: governanceProcedure.query(async ({ ctx }) => {
    const { memberships } = ctx.user;
    const teams = await ctx.db.team.findMany({ select: { id: true, name: true } });
    const ids = new Map(teams.map((team) => [team.name, team.id]));
    return governanceOverview({
      db: ctx.db,
      cluster: ctx.cluster,
      canEditScheduler: canEditScheduler(memberships),
      permissions: (team) => {
        const id = ids.get(team) ?? "";
        return {
          canEditQuota: canEditQuota(memberships, id),
          canEditMembers: canEditMembers(memberships, id),
          canReadQueue: canReadGovernance(memberships, id),
        };
      },
    });
  }),

  quota: quotaRouter,
  scheduler: schedulerRouter,
  members: membersRouter,

  /** A team's queue: its members and cluster admins. */
  queue: governanceProcedure.input(teamInputSchema).query(async ({ ctx, input }) => {
    const teamId = await teamIdByName(ctx.db, input.team);
    if (!canReadGovernance(ctx.user.memberships, teamId)) {
      forbidden(`only members of ${input.team} see its queue`);
    }
    return queueOf(await liveSnapshot(ctx), input.team);
  }),

  /** Why a job is pending, in numbers; null when it is not pending. Another team's job is NOT_FOUND. */
  whyPending: governanceProcedure.input(jobKeyInputSchema).query(async ({ ctx, input }) => {
    const key = jobKey(input);
    const team = await ctx.db.team.findUnique({
      where: { namespace: input.namespace },
      select: { id: true, name: true },
    });
    if (!team || !canReadGovernance(ctx.user.memberships, team.id)) {
      throw new AppError("NOT_FOUND", `job ${key} not found in a team queue`);
    }
    return askWhyPending({ db: ctx.db, cluster: ctx.cluster, ref: input, team: team.name });
  }),

  /**
   * What a quota or scheduler change would do before it is saved: which running jobs it would preempt and
   * which pending jobs it would admit, and whether a quota change over-commits the cluster's GPUs (saving it
   * then needs allowOvercommit). Asked by whoever may make the change.
   */
  whatIf: governanceProcedure.input(whatIfInputSchema).query(async ({ ctx, input }) => {
    const { memberships } = ctx.user;
    if (input.kind === "quota") {
      const teamId = await teamIdByName(ctx.db, input.quota.team);
      if (!canEditQuota(memberships, teamId)) {
        forbidden(`only a team admin of ${input.quota.team} or a cluster admin may change its quota`);
      }
    } else if (!canEditScheduler(memberships)) {
      forbidden("only a cluster admin may change the scheduler config and priority classes");
    }
    const [snap, capacity] = await Promise.all([liveSnapshot(ctx), readClusterCapacity(ctx.cluster)]);
    return whatIfView({ snapshot: snap.snapshot, change: input, capacity });
  }),

  /** A team's guaranteed, used, borrowed and lent capacity of one resource over a range: its members. */
  capacityHistory: governanceProcedure.input(capacityHistoryInputSchema).query(async ({ ctx, input }) => {
    const teamId = await teamIdByName(ctx.db, input.team);
    if (!canReadGovernance(ctx.user.memberships, teamId)) {
      forbidden(`only members of ${input.team} see its capacity`);
    }
    return capacityHistory(ctx.db, { ...input, now: Date.now() });
  }),

  /**
   * What changed on the governance pages, live (SSE): a revision of the audit, queues and capacity the user
   * reads (server/services/live/governance-streams.ts); the pages fetch again the views whose part moved.
   */
  watch: governanceProcedure.subscription(async function* ({ ctx, signal }) {
    const session = { db: ctx.db, user: ctx.user, sessionToken: ctx.sessionToken, signal };
    yield* withTrpcErrors(watchGovernance({ ...session, source: await ctx.cluster() }));
  }),

  /** Governance audit, newest first: cluster admins all, team admins their teams'; nobody else. */
  audit: governanceProcedure.input(auditInputSchema).query(async ({ ctx, input }) => {
    if (!canReadAudit(ctx.user.memberships)) forbidden("only team admins and cluster admins see the audit");
    const allowed = auditableTeams(ctx.user.memberships);
    if (input.team !== undefined && allowed !== null && !allowed.includes(input.team)) {
      forbidden(`only a team admin of ${input.team} or a cluster admin sees its audit`);
    }
    const teams = input.team !== undefined ? [input.team] : allowed;
    return listGovernanceAudit(ctx.db, { teams, limit: input.limit });
  }),
});
