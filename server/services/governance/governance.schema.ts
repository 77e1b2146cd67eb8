import { z } from "zod";
import { checkKueueForStrategy, kueueSettingsSchema } from "@/server/domain/governance/kueue-settings.schema";
import type { KueueSettings } from "@/server/domain/governance/types";
import { teamNameSchema } from "@/server/services/teams/teams.schema";

/**
 * The governance router's inputs (HyperPod task governance,
 * docs/hyperpod-compatibility.md, "Task governance configuration") with field-level messages, and the shapes
 * it answers. The console's forms validate as you type with these same schemas; the server runs them again
 * and adds the checks that need the database or the live jobs.
 */

// ── building blocks ────────────────────────────────────────────────────────────────────────────────────
export { kueueSettingsSchema, teamNameSchema };

const version = z
  .number({ error: "expected the version you read (a whole number)" })
  .int({ message: "expected the version you read (a whole number)" })
  .min(1, { message: "expected the version you read (≥ 1)" });

/** A Kubernetes resource name: `cpu`, `memory`, `nvidia.com/gpu`, `vpc.amazonaws.com/efa`. */
export const resourceNameSchema = z
  .string({ error: "expected a resource name" })
  .min(1, { message: "a resource is required" })
  .max(253, { message: "at most 253 characters" })
  .regex(/^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-._A-Za-z0-9]*[A-Za-z0-9])?$/, {
    message: "a Kubernetes resource name, e.g. nvidia.com/gpu, cpu or memory",
  });

/** An instance type (Kueue ResourceFlavor), e.g. ml.g5.12xlarge; `default` where nodes carry none. */
export const instanceTypeSchema = z
  .string({ error: "expected an instance type" })
  .min(1, { message: "an instance type is required (default where nodes carry none)" })
  .max(63, { message: "at most 63 characters" })
  .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, {
    message: "lower-case letters, digits, '.' and '-', e.g. ml.g5.12xlarge or default",
  });

/** An amount in the resource's base unit (GPUs, cores, bytes): at most 3 decimals, as Postgres keeps it. */
const amount = z
  .number({ error: "expected a number ≥ 0" })
  .min(0, { message: "expected a number ≥ 0" })
  .max(1e15, { message: "expected a number ≤ 10^15" })
  .refine((value) => Math.abs(value * 1000 - Math.round(value * 1000)) < 1e-6, {
    message: "at most 3 decimals",
  });

export const activationSchema = z.enum(["Enabled", "Disabled"], {
  error: "expected Enabled or Disabled",
});
export const strategySchema = z.enum(["LendAndBorrow", "Lend", "DontLend"], {
  error: "expected LendAndBorrow, Lend or DontLend",
});
export const preemptTeamTasksSchema = z.enum(["LowerPriority", "Never"], {
  error: "expected LowerPriority or Never",
});

export const quotaResourceSchema = z.strictObject({
  instanceType: instanceTypeSchema.default("default"),
  resource: resourceNameSchema,
  guaranteed: amount,
  /** An absolute cap on borrowing of this resource; overrides the percent. null/absent: the percent applies. */
  absoluteBorrowLimit: amount.nullable().optional(),
});
export type QuotaResourceInput = z.input<typeof quotaResourceSchema>;

// ── quota ──────────────────────────────────────────────────────────────────────────────────────────────
export const teamInputSchema = z.strictObject({ team: teamNameSchema });

const quotaFields = z.strictObject({
  team: teamNameSchema,
  version,
  activation: activationSchema,
  strategy: strategySchema,
  // HyperPod's API caps the percent at 500; Kueue has no cap, so neither has Rebound (a large percent of a
  // small guarantee is how a team borrows most of the cluster).
  borrowLimitPercent: z
    .number({ error: "expected a whole percent ≥ 1" })
    .int({ message: "expected a whole percent ≥ 1" })
    .min(1, { message: "expected a whole percent ≥ 1" })
    .max(1_000_000, { message: "expected a percent ≤ 1000000" }),
  preemptTeamTasks: preemptTeamTasksSchema,
  fairShareWeight: z
    .number({ error: "expected a weight between 0 and 100" })
    .int({ message: "expected a whole number" })
    .min(0, { message: "expected a weight between 0 and 100" })
    .max(100, { message: "expected a weight between 0 and 100" }),
  description: z.string().max(250, { message: "at most 250 characters" }).optional(),
  resources: z.array(quotaResourceSchema).max(15, { message: "at most 15 resources" }),
  /** Kueue's own ClusterQueue knobs (advanced); absent: the stored ones stay (new quota: the defaults). */
  kueue: kueueSettingsSchema.optional(),
  /**
   * Save a raise of guaranteed GPUs even though the teams' guarantees then exceed the cluster's GPUs
   * (server/services/governance/overcommit.ts); without it such a raise is refused. Audited when given.
   */
  allowOvercommit: z.boolean({ error: "expected true or false" }).optional(),
});

type QuotaShape = z.output<typeof quotaFields>;

/** Semantic checks a form can show beside the field: duplicates, and borrow limits only a borrower has. */
function checkQuota(quota: QuotaShape, ctx: z.RefinementCtx): void {
  const seen = new Map<string, number>();
  quota.resources.forEach((row, index) => {
    const key = `${row.instanceType}\u0000${row.resource}`;
    const first = seen.get(key);
    if (first !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["resources", index, "resource"],
        message: `${row.resource} on ${row.instanceType} is already listed at resources[${first}]`,
      });
    } else seen.set(key, index);
    const limit = row.absoluteBorrowLimit;
    if (limit !== null && limit !== undefined && quota.strategy !== "LendAndBorrow") {
      ctx.addIssue({
        code: "custom",
        path: ["resources", index, "absoluteBorrowLimit"],
        message: `a team that does not borrow (${quota.strategy}) has no borrow limit: remove it or choose LendAndBorrow`,
      });
    }
  });
  if (quota.kueue !== undefined) checkKueueForStrategy(quota.strategy, quota.kueue, ctx);
}

/**
 * Zod runs these checks unless some value has the wrong type (a fraction where a whole number is expected
 * counts as one); a number out of range or a bad name elsewhere does not hide them.
 */
export const quotaUpdateInputSchema = quotaFields.superRefine(checkQuota);
export type QuotaUpdateInput = z.input<typeof quotaUpdateInputSchema>;
export type QuotaUpdate = z.output<typeof quotaUpdateInputSchema>;

// ── scheduler ──────────────────────────────────────────────────────────────────────────────────────────
/**
 * Priority class names follow the team name pattern
 * (docs/hyperpod-compatibility.md, "Task governance configuration"); weights 0..100, higher runs first.
 */
export const priorityClassSchema = z.strictObject({
  name: teamNameSchema,
  weight: z
    .number({ error: "expected a weight between 0 and 100" })
    .int({ message: "expected a whole number" })
    .min(0, { message: "expected a weight between 0 and 100" })
    .max(100, { message: "expected a weight between 0 and 100" }),
  description: z.string().max(250, { message: "at most 250 characters" }).optional(),
});

function checkClasses(config: { priorityClasses: Array<{ name: string }> }, ctx: z.RefinementCtx): void {
  const seen = new Map<string, number>();
  config.priorityClasses.forEach((entry, index) => {
    const first = seen.get(entry.name);
    if (first === undefined) seen.set(entry.name, index);
    else {
      ctx.addIssue({
        code: "custom",
        path: ["priorityClasses", index, "name"],
        message: `${entry.name} is already defined at priorityClasses[${first}]`,
      });
    }
  });
}

export const schedulerUpdateInputSchema = z
  .strictObject({
    version,
    /** true: task ranking by priority class; false: first come, first served. */
    taskRanking: z.boolean({ error: "expected true or false" }),
    fairShare: z.boolean({ error: "expected true or false" }),
    idleResourceSharing: z.boolean({ error: "expected true or false" }),
    priorityClasses: z.array(priorityClassSchema).max(10, { message: "at most 10 priority classes" }),
  })
  .superRefine(checkClasses);
export type SchedulerUpdateInput = z.input<typeof schedulerUpdateInputSchema>;
export type SchedulerUpdate = z.output<typeof schedulerUpdateInputSchema>;

// ── members ────────────────────────────────────────────────────────────────────────────────────────────
export const roleSchema = z.enum(["viewer", "engineer", "team_admin", "cluster_admin"], {
  error: "expected viewer, engineer, team_admin or cluster_admin",
});

export const setRoleInputSchema = z.strictObject({
  team: teamNameSchema,
  userId: z.uuid({ message: "expected a user id" }),
  role: roleSchema,
  /**
   * The role you read (null: not a member yet). When given and the member's role has changed since, the
   * write is refused (CONFLICT) as a stale quota write is.
   */
  previousRole: roleSchema.nullable().optional(),
});
export type SetRoleInput = z.input<typeof setRoleInputSchema>;

export const removeMemberInputSchema = z.strictObject({
  team: teamNameSchema,
  userId: z.uuid({ message: "expected a user id" }),
  /** The role you read; when the member's role has changed since, the removal is refused (CONFLICT). */
  previousRole: roleSchema.optional(),
});
export type RemoveMemberInput = z.input<typeof removeMemberInputSchema>;

// ── queue, why pending, what-if, history, audit ────────────────────────────────────────────────────────
export const jobKeyInputSchema = z.strictObject({
  namespace: z.string().min(1, { message: "a namespace is required" }).max(253),
  name: z.string().min(1, { message: "a job name is required" }).max(253),
});

/** A change to try before saving: a team's quota or the scheduler config (the version is not checked). */
export const whatIfInputSchema = z.discriminatedUnion(
  "kind",
  [
    z.strictObject({ kind: z.literal("quota"), quota: quotaUpdateInputSchema }),
    z.strictObject({ kind: z.literal("scheduler"), scheduler: schedulerUpdateInputSchema }),
  ],
  { error: "expected kind quota or scheduler" },
);
export type WhatIfInput = z.input<typeof whatIfInputSchema>;

export const capacityRangeSchema = z.enum(["1h", "6h", "24h", "7d"], {
  error: "expected 1h, 6h, 24h or 7d",
});
export const capacityHistoryInputSchema = z.strictObject({
  team: teamNameSchema,
  range: capacityRangeSchema.default("6h"),
  resource: resourceNameSchema.default("nvidia.com/gpu"),
});
export type CapacityHistoryInput = z.input<typeof capacityHistoryInputSchema>;

export const auditInputSchema = z
  .strictObject({
    team: teamNameSchema.optional(),
    limit: z.number().int().min(1).max(500, { message: "at most 500 entries" }).default(100),
  })
  .default({ limit: 100 });
export type AuditInput = z.input<typeof auditInputSchema>;

// ── answers ────────────────────────────────────────────────────────────────────────────────────────────
export type Role = z.infer<typeof roleSchema>;
export type Person = { id: string; name: string };

export type QuotaView = {
  team: string;
  displayName: string;
  version: number;
  activation: "Enabled" | "Disabled";
  strategy: "LendAndBorrow" | "Lend" | "DontLend";
  borrowLimitPercent: number;
  preemptTeamTasks: "LowerPriority" | "Never";
  fairShareWeight: number;
  /** The advanced Kueue settings, defaults filled in. */
  kueue: KueueSettings;
  description: string;
  resources: Array<{
    instanceType: string;
    resource: string;
    guaranteed: number;
    absoluteBorrowLimit: number | null;
  }>;
  updatedAt: Date | null;
  updatedBy: Person | null;
  /** Whether the signed-in user may change it (team admin of this team, or cluster admin). */
  canEdit: boolean;
};

export type PriorityClassView = { name: string; weight: number; description: string; jobs: number };

export type SchedulerView = {
  version: number;
  taskRanking: boolean;
  fairShare: boolean;
  idleResourceSharing: boolean;
  priorityClasses: PriorityClassView[];
  updatedAt: Date | null;
  updatedBy: Person | null;
  canEdit: boolean;
};

/** One team's capacity now, per flavor and resource (base units: GPUs, cores, bytes). */
export type CapacityRow = {
  flavor: string;
  resource: string;
  guaranteed: number;
  used: number;
  borrowed: number;
  lent: number;
  borrowLimit: number;
  available: number;
};

export type OverviewTeam = {
  team: string;
  displayName: string;
  quota: Omit<QuotaView, "canEdit" | "team" | "displayName">;
  capacity: CapacityRow[];
  jobs: { pending: number; admitted: number; preempted: number };
  canEditQuota: boolean;
  canEditMembers: boolean;
  canReadQueue: boolean;
};

export type Overview = {
  teams: OverviewTeam[];
  /** Cluster capacity per flavor and resource (healthy nodes, net of jobs outside any team queue). */
  capacity: Record<string, Record<string, number>>;
  canEditScheduler: boolean;
  /** Where the live jobs came from; null with the reason when the cluster could not be read. */
  clusterError: string | null;
};

export type MemberView = {
  userId: string;
  name: string;
  email: string;
  role: Role;
  canChange: boolean;
  /** Whether the reader may remove this member (the last team admin never). */
  canRemove: boolean;
};
export type MembersView = {
  team: string;
  members: MemberView[];
  canEdit: boolean;
  /** Whether the reader may add users who are not members yet (cluster admins only). */
  canAdd: boolean;
  assignable: Role[];
};

export type QueueJob = {
  key: string;
  namespace: string;
  name: string;
  priorityClass: string | null;
  priority: number;
  createdAt: number;
  /** ms since it was created (pending) or since its last change of state. */
  ageMs: number;
  request: Record<string, number>;
};
export type QueueView = {
  team: string;
  pending: Array<QueueJob & { position: number; reason: string; message: string }>;
  admitted: Array<QueueJob & { flavor: string | null; admittedAt: number }>;
  preempted: Array<QueueJob & { by: string | null; reason: string; message: string; at: number }>;
};

export type ShortfallView = {
  flavor: string;
  resource: string;
  need: number;
  available: number;
  missing: number;
};
export type WhyPendingView = {
  key: string;
  team: string;
  position: number;
  reason: string;
  shortfall: ShortfallView[];
  ahead: string[];
  wouldRun: string[];
  text: string;
};

export type WhatIfView = {
  /**
   * For a quota change: whether it raises the team's guaranteed GPUs past what the cluster has (then saving
   * needs allowOvercommit); `fits` when it does not (or it is a scheduler change), `unknown` with the reason when the cluster cannot be read.
   */
  overcommit:
    | { state: "fits" }
    | { state: "over"; asked: number; others: number; capacity: number; atMost: number; message: string }
    | { state: "unknown"; reason: string };
  preempted: Array<{ key: string; team: string; by: string; reason: string; message: string }>;
  admitted: Array<{ key: string; team: string; flavor: string; preempts: string[]; message: string }>;
};

export type CapacityPoint = {
  at: number;
  guaranteed: number;
  used: number;
  borrowed: number;
  lent: number;
};
export type CapacityHistoryView = {
  team: string;
  resource: string;
  /** How often the console records a sample (ms). */
  intervalMs: number;
  points: CapacityPoint[];
};

/** An audit row as the console shows it (server/store/audit reads them). */
export type { AuditEntry } from "@/server/store/audit/queries";
