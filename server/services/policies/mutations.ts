import type { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/server/db/client";
import type { JobSpecError } from "@/server/domain/job-spec/job-spec-errors";
import { parsePolicyYaml } from "@/server/domain/policy";
import { AppError } from "@/server/errors";
import { staleWriteError } from "@/server/services/governance/conflict";
import type { CreatePolicy, SavePolicy } from "@/server/services/policies/policies.schema";
import { writeAudit } from "@/server/store/audit/mutations";

/**
 * Writes to the policy library (issue 12). Every version is parsed again here with the same parser the
 * editor runs (parsePolicyYaml), and a policy that does not parse is refused with its errors and nothing
 * saved. Saves are optimistic: the version you edited must still be the latest, else CONFLICT names who
 * saved the newer one and when. Every write is audited with before and after.
 */

export type Actor = { id: string; name: string };
export type PolicyWrite<T> = { ok: true; value: T } | { ok: false; errors: JobSpecError[] };

const targetOf = (team: string, name: string) => `team/${team}/policy/${name}`;

/** The parsed runPolicy as Prisma stores JSON (through JSON: no undefined fields). */
function asJson(value: unknown): Prisma.InputJsonValue {
  return JSON.parse(JSON.stringify(value)) as Prisma.InputJsonValue;
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && "code" in error && error.code === "P2002";
}

/** A new policy in a team with its version 1. A name the team already uses is CONFLICT. */
export async function createPolicy(
  db: Db,
  args: { input: CreatePolicy; actor: Actor },
): Promise<PolicyWrite<{ id: string; version: 1 }>> {
  const { input, actor } = args;
  const parsed = parsePolicyYaml(input.yaml);
  if (!parsed.ok) return { ok: false, errors: parsed.errors };
  const team = await db.team.findUnique({ where: { id: input.teamId }, select: { name: true } });
  if (!team) throw new AppError("NOT_FOUND", `teamId: no team ${input.teamId}`);
  const duplicate = () =>
    new AppError("CONFLICT", `name: ${team.name} already has a policy named "${input.name}"`);
  try {
    return await db.$transaction(async (tx) => {
      const existing = await tx.policy.findUnique({
        where: { teamId_name: { teamId: input.teamId, name: input.name } },
        select: { id: true },
      });
      if (existing) throw duplicate();
      const policy = await tx.policy.create({
        data: { teamId: input.teamId, name: input.name, description: input.description },
        select: { id: true },
      });
      await tx.policyVersion.create({
        data: {
          policyId: policy.id,
          version: 1,
          yaml: input.yaml,
          parsed: asJson(parsed.runPolicy),
          author: actor.name,
          authorId: actor.id,
          message: input.message,
        },
      });
      await writeAudit(tx, {
        userId: actor.id,
        action: "policy.create",
        target: targetOf(team.name, input.name),
        details: {
          policyId: policy.id,
          before: null,
          after: { version: 1, description: input.description, message: input.message, yaml: input.yaml },
        },
      });
      return { ok: true as const, value: { id: policy.id, version: 1 as const } };
    });
  } catch (error) {
    // Two creates of one name at once: the unique index decides, the loser hears why.
    if (isUniqueViolation(error)) throw duplicate();
    throw error;
  }
}

/**
 * A new version of a policy, when `baseVersion` is still its latest: the row is locked for the check, so
 * of two saves from the same base exactly one wins and the other is refused naming the winner.
 */
export async function savePolicy(
  db: Db,
  args: { input: SavePolicy; actor: Actor },
): Promise<PolicyWrite<{ version: number }>> {
  const { input, actor } = args;
  const parsed = parsePolicyYaml(input.yaml);
  if (!parsed.ok) return { ok: false, errors: parsed.errors };
  return db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT "id" FROM "Policy" WHERE "id" = ${input.id}::uuid FOR UPDATE`;
    const policy = await tx.policy.findUnique({
      where: { id: input.id },
      select: {
        name: true,
        team: { select: { name: true } },
        versions: {
          orderBy: { version: "desc" },
          take: 1,
          select: { version: true, yaml: true, author: true, createdAt: true },
        },
      },
    });
    const latest = policy?.versions[0];
    if (!policy || !latest) throw new AppError("NOT_FOUND", `policy ${input.id} not found`);
    if (latest.version !== input.baseVersion) {
      throw staleWriteError(`policy "${policy.name}" of ${policy.team.name}`, {
        version: latest.version,
        sent: input.baseVersion,
        updatedAt: latest.createdAt,
        updatedBy: latest.author,
      });
    }
    const version = latest.version + 1;
    await tx.policyVersion.create({
      data: {
        policyId: input.id,
        version,
        yaml: input.yaml,
        parsed: asJson(parsed.runPolicy),
        author: actor.name,
        authorId: actor.id,
        message: input.message,
      },
    });
    await tx.policy.update({ where: { id: input.id }, data: { updatedAt: new Date() } });
    await writeAudit(tx, {
      userId: actor.id,
      action: "policy.save",
      target: targetOf(policy.team.name, policy.name),
      details: {
        policyId: input.id,
        before: { version: latest.version, yaml: latest.yaml },
        after: { version, message: input.message, yaml: input.yaml },
      },
    });
    return { ok: true as const, value: { version } };
  });
}
