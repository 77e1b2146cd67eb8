import { createTRPCRouter, protectedProcedure } from "@/server/api/trpc";
import { canEditPolicies, policyTeams } from "@/server/domain/access/policies";
import { diffPolicyYaml, explainPolicy, POLICY_TEMPLATES, parsePolicyYaml } from "@/server/domain/policy";
import { listPolicyAudit } from "@/server/services/policies/audit";
import { dryRunPolicy } from "@/server/services/policies/dry-run";
import { createPolicy, savePolicy } from "@/server/services/policies/mutations";
import {
  createPolicyInputSchema,
  dryRunInputSchema,
  listPoliciesInputSchema,
  policyAuditInputSchema,
  policyDiffInputSchema,
  policyInputSchema,
  policyVersionInputSchema,
  savePolicyInputSchema,
  validatePolicyInputSchema,
} from "@/server/services/policies/policies.schema";
import { getPolicy, listPolicies, policyVersion } from "@/server/services/policies/queries";
import { requirePolicyEditable, requirePolicyReadable, requireTeamEditable } from "./access";
import { invalidPolicy } from "./invalid-policy";
import { jobPolicyProcedures } from "./job-procedures";

/**
 * Recovery-policy and log-rule policies (issue 12): the templates, validation as the editor types, the
 * team's policy library with versions and diffs, dry-runs, and (job-procedures.ts) a job's policy, apply
 * and shadow mode. Access is decided in server/domain/access/policies.ts; every policy is parsed again on
 * the server before it is kept; every mutation is audited by its service.
 */
export const policiesRouter = createTRPCRouter({
  templates: protectedProcedure.query(() => POLICY_TEMPLATES),

  /** The editor's check of a draft: errors (line and column), warnings, notes, and each rule in words. */
  validate: protectedProcedure.input(validatePolicyInputSchema).query(({ input }) => {
    const parsed = parsePolicyYaml(input.yaml);
    if (!parsed.ok)
      return { ok: false as const, errors: parsed.errors, warnings: [], notes: [], explanation: null };
    const { warnings, notes } = parsed;
    return { ok: true as const, errors: [], warnings, notes, explanation: explainPolicy(parsed.runPolicy) };
  }),

  /** The policies of the user's teams (every team's for a cluster admin), or of one of them. */
  list: protectedProcedure.input(listPoliciesInputSchema).query(({ ctx, input }) => {
    const { memberships } = ctx.user;
    const mine = policyTeams(memberships);
    const teams =
      input.teamId === undefined ? mine : mine === null || mine.includes(input.teamId) ? [input.teamId] : [];
    return listPolicies(ctx.db, { teams, canEdit: (teamId) => canEditPolicies(memberships, teamId) });
  }),

  get: protectedProcedure.input(policyInputSchema).query(async ({ ctx, input }) => {
    const team = await requirePolicyReadable(ctx.db, ctx.user, input.id);
    return getPolicy(ctx.db, { id: input.id, canEdit: canEditPolicies(ctx.user.memberships, team.id) });
  }),

  version: protectedProcedure.input(policyVersionInputSchema).query(async ({ ctx, input }) => {
    await requirePolicyReadable(ctx.db, ctx.user, input.id);
    const { parsed: _parsed, ...version } = await policyVersion(ctx.db, input);
    return version;
  }),

  /** Line by line from one version to another (either order). */
  diff: protectedProcedure.input(policyDiffInputSchema).query(async ({ ctx, input }) => {
    await requirePolicyReadable(ctx.db, ctx.user, input.id);
    const [from, to] = await Promise.all([
      policyVersion(ctx.db, { id: input.id, version: input.from }),
      policyVersion(ctx.db, { id: input.id, version: input.to }),
    ]);
    return { from: input.from, to: input.to, lines: diffPolicyYaml(from.yaml, to.yaml) };
  }),

  create: protectedProcedure.input(createPolicyInputSchema).mutation(async ({ ctx, input }) => {
    await requireTeamEditable(ctx.db, ctx.user, input.teamId);
    const created = await createPolicy(ctx.db, { input, actor: ctx.user });
    if (!created.ok) throw invalidPolicy(created.errors);
    return created.value;
  }),

  /** A new version; a stale baseVersion is CONFLICT naming who saved the newer one and when. */
  save: protectedProcedure.input(savePolicyInputSchema).mutation(async ({ ctx, input }) => {
    await requirePolicyEditable(ctx.db, ctx.user, input.id);
    const saved = await savePolicy(ctx.db, { input, actor: ctx.user });
    if (!saved.ok) throw invalidPolicy(saved.errors);
    return saved.value;
  }),

  /**
   * The rules run with the real evaluator on a simulated clock over pasted text or a rank's recent output
   * (read as reading that job), and what the restart policy would do next given the job's restart history.
   * Changes nothing, so anyone who may read the job may ask.
   */
  dryRun: protectedProcedure.input(dryRunInputSchema).mutation(({ ctx, input }) => {
    const parsed = parsePolicyYaml(input.yaml);
    if (!parsed.ok) throw invalidPolicy(parsed.errors);
    return dryRunPolicy(ctx.db, {
      cluster: ctx.cluster,
      user: ctx.user,
      runPolicy: parsed.runPolicy,
      source: input.source,
      job: input.job,
    });
  }),

  ...jobPolicyProcedures,

  /** Who created, saved, applied, shadowed and promoted what: the user's teams' (all for a cluster admin). */
  audit: protectedProcedure.input(policyAuditInputSchema).query(async ({ ctx, input }) => {
    const mine = policyTeams(ctx.user.memberships);
    const teams = await ctx.db.team.findMany({
      where: mine === null ? {} : { id: { in: [...mine] } },
      select: { id: true, name: true, namespace: true },
    });
    const chosen = teams.filter(
      (team) =>
        (input.teamId === undefined || team.id === input.teamId) &&
        (input.job === undefined || team.namespace === input.job.namespace),
    );
    return listPolicyAudit(ctx.db, { teams: chosen, job: input.job, limit: input.limit });
  }),
});
