import { hash } from "@node-rs/argon2";
import type { Prisma } from "@/generated/prisma/client";
import type { Role } from "@/generated/prisma/enums";
import type { Db } from "@/server/db/client";

/** The demo's password for every seeded user (docs/security.md says so): the one-machine demo only, never production. */
export const DEMO_PASSWORD = "rebound-demo";

/** What an empty database gets: `demo` teams and users (password above), or `none` (settings only). */
export type SeedMode = "demo" | "none";
/** REBOUND_SEED: `auto` is `demo` only for the one-machine demo (not production, local back end). */
export type SeedChoice = "auto" | SeedMode;

export function resolveSeedMode(opts: {
  choice: SeedChoice;
  nodeEnv: string;
  cluster: "local" | "kubernetes";
}): SeedMode {
  if (opts.choice !== "auto") return opts.choice;
  return opts.nodeEnv !== "production" && opts.cluster === "local" ? "demo" : "none";
}

type SeedTeam = { name: string; displayName: string; gpus: number; cpu: number; weight: number };
type SeedUser = { email: string; name: string; roles: Array<{ team: string; role: Role }> };

export const DEMO_TEAMS: SeedTeam[] = [
  { name: "llm-research", displayName: "LLM Research", gpus: 16, cpu: 192, weight: 60 },
  { name: "vision", displayName: "Vision", gpus: 8, cpu: 96, weight: 40 },
];

export const DEMO_USERS: SeedUser[] = [
  {
    email: "admin@rebound.local",
    name: "Cluster Admin",
    roles: [
      { team: "llm-research", role: "cluster_admin" },
      { team: "vision", role: "cluster_admin" },
    ],
  },
  { email: "lead@rebound.local", name: "Team Lead", roles: [{ team: "llm-research", role: "team_admin" }] },
  {
    email: "engineer@rebound.local",
    name: "ML Engineer",
    roles: [{ team: "llm-research", role: "engineer" }],
  },
  { email: "vision@rebound.local", name: "Vision Engineer", roles: [{ team: "vision", role: "engineer" }] },
  {
    email: "viewer@rebound.local",
    name: "Viewer",
    roles: [
      { team: "llm-research", role: "viewer" },
      { team: "vision", role: "viewer" },
    ],
  },
];

export const DEMO_PRIORITY_CLASSES = [
  { name: "inference", weight: 90, description: "Latency-sensitive work; preempts training." },
  { name: "training", weight: 70, description: "Default for training jobs." },
];

async function seedTeams(db: Prisma.TransactionClient): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const team of DEMO_TEAMS) {
    const row = await db.team.create({
      data: {
        name: team.name,
        displayName: team.displayName,
        namespace: `hyperpod-ns-${team.name}`,
        quota: {
          create: {
            fairShareWeight: team.weight,
            resources: {
              create: [
                { resource: "nvidia.com/gpu", guaranteed: team.gpus },
                { resource: "cpu", guaranteed: team.cpu },
              ],
            },
          },
        },
      },
      select: { id: true },
    });
    ids.set(team.name, row.id);
  }
  return ids;
}

async function seedUsers(
  db: Prisma.TransactionClient,
  { teamIds, passwordHash }: { teamIds: Map<string, string>; passwordHash: string },
): Promise<void> {
  for (const user of DEMO_USERS) {
    await db.user.create({
      data: {
        email: user.email,
        name: user.name,
        passwordHash,
        memberships: {
          create: user.roles.map(({ team, role }) => {
            const teamId = teamIds.get(team);
            if (!teamId) throw new Error(`seed: unknown team ${team}`);
            return { teamId, role };
          }),
        },
      },
    });
  }
}

/** Cluster-wide settings every install starts with (priority classes, scheduler config); idempotent. */
async function seedSettings(db: Prisma.TransactionClient): Promise<void> {
  await db.priorityClass.createMany({ data: DEMO_PRIORITY_CLASSES, skipDuplicates: true });
  await db.schedulerConfig.upsert({ where: { id: 1 }, create: { id: 1 }, update: {} });
}

/** Seeds the demo teams and users only into an empty database (no teams); returns whether it seeded. */
export async function seedIfEmpty(db: Db): Promise<boolean> {
  if ((await db.team.count()) > 0) return false;
  const passwordHash = await hash(DEMO_PASSWORD);
  return db.$transaction(async (tx) => {
    // A concurrent starter may have seeded meanwhile: lock the table and check again.
    await tx.$executeRaw`LOCK TABLE "Team" IN EXCLUSIVE MODE`;
    if ((await tx.team.count()) > 0) return false;
    const teamIds = await seedTeams(tx);
    await seedUsers(tx, { teamIds, passwordHash });
    await seedSettings(tx);
    return true;
  });
}

/**
 * Production's seed: the settings only (no teams, no users). The first cluster admin comes from the
 * installer's password or the setup link (server/services/setup); teams are created in the console.
 */
export async function seedSettingsIfEmpty(db: Db): Promise<boolean> {
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`LOCK TABLE "SchedulerConfig" IN EXCLUSIVE MODE`;
    if ((await tx.schedulerConfig.count()) > 0) return false;
    await seedSettings(tx);
    return true;
  });
}
