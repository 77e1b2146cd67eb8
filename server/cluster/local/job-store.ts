import type { Prisma } from "@/generated/prisma/client";
import type { ClusterJob, JobObjectUpdate, JobObjectUpdateResult, JobRef } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import type { HyperPodPyTorchJob } from "@/server/domain/job-spec/job-spec.schema";
import { hyperPodPyTorchJobSchema } from "@/server/domain/job-spec/job-spec.schema";
import type { JobSpecError } from "@/server/domain/job-spec/job-spec-errors";
import { type JobStatus, jobStatusSchema } from "@/server/domain/job-spec/job-status.schema";
import { parseJobYaml } from "@/server/domain/job-spec/parse-job";

/** Jobs of the local back end live in Postgres (LocalJob): the spec as submitted, the status as written. */
const select = {
  id: true,
  name: true,
  namespace: true,
  spec: true,
  status: true,
  generation: true,
  deletedAt: true,
  createdAt: true,
} as const;

type Row = Prisma.LocalJobGetPayload<{ select: typeof select }>;

function toClusterJob(row: Row): ClusterJob {
  return {
    ref: { namespace: row.namespace, name: row.name },
    uid: row.id,
    generation: row.generation,
    createdAt: row.createdAt,
    object: hyperPodPyTorchJobSchema.parse(row.spec),
    status: jobStatusSchema.parse(row.status),
    deleting: row.deletedAt !== null,
    resourceVersion: String(row.generation),
  };
}

/** The stored object with the update's runPolicy and annotations (null removes one). */
function updatedObject(job: HyperPodPyTorchJob, update: JobObjectUpdate): HyperPodPyTorchJob {
  const annotations: Record<string, string> = { ...job.metadata.annotations };
  for (const [key, value] of Object.entries(update.annotations)) {
    if (value === null) delete annotations[key];
    else annotations[key] = value;
  }
  const runPolicy = update.runPolicy ?? job.spec.runPolicy;
  return { ...job, metadata: { ...job.metadata, annotations }, spec: { ...job.spec, runPolicy } };
}

export type SubmitResult =
  | { ok: true; job: ClusterJob }
  | { ok: false; reason: "invalid"; errors: JobSpecError[] }
  | { ok: false; reason: "exists"; message: string };

export function createJobStore(db: Db) {
  const where = (ref: JobRef) => ({ namespace_name: { namespace: ref.namespace, name: ref.name } });

  return {
    async submitYaml(text: string): Promise<SubmitResult> {
      const parsed = parseJobYaml(text);
      if (!parsed.ok) return { ok: false, reason: "invalid", errors: parsed.errors };
      return this.submit(parsed.job);
    },

    async submit(job: HyperPodPyTorchJob): Promise<SubmitResult> {
      const namespace = job.metadata.namespace ?? "default";
      const team = namespace.startsWith("hyperpod-ns-")
        ? await db.team.findUnique({ where: { namespace }, select: { id: true } })
        : null;
      return db.$transaction(async (tx) => {
        const existing = await tx.localJob.findUnique({
          where: where({ namespace, name: job.metadata.name }),
        });
        if (existing) {
          return {
            ok: false,
            reason: "exists",
            message: `job ${namespace}/${job.metadata.name} already exists`,
          } as const;
        }
        const stored = { ...job, metadata: { ...job.metadata, namespace } };
        const row = await tx.localJob.create({
          data: {
            name: job.metadata.name,
            namespace,
            teamId: team?.id ?? null,
            spec: stored as unknown as Prisma.InputJsonValue,
          },
          select,
        });
        return { ok: true, job: toClusterJob(row) } as const;
      });
    },

    async list(): Promise<ClusterJob[]> {
      const rows = await db.localJob.findMany({ select, orderBy: { createdAt: "asc" } });
      return rows.map(toClusterJob);
    },

    async refs(): Promise<JobRef[]> {
      return db.localJob.findMany({ select: { namespace: true, name: true } });
    },

    async get(ref: JobRef): Promise<ClusterJob | null> {
      const row = await db.localJob.findUnique({ where: where(ref), select });
      return row ? toClusterJob(row) : null;
    },

    async updateStatus(ref: JobRef, status: JobStatus): Promise<void> {
      await db.localJob.updateMany({
        where: { namespace: ref.namespace, name: ref.name },
        data: { status: status as unknown as Prisma.InputJsonValue },
      });
    },

    /** Sets runPolicy.suspend and bumps the generation, as an edit of the spec would. */
    async setSuspended(ref: JobRef, suspend: boolean): Promise<boolean> {
      const job = await this.get(ref);
      if (!job) return false;
      const spec = {
        ...job.object,
        spec: { ...job.object.spec, runPolicy: { ...job.object.spec.runPolicy, suspend } },
      };
      await db.localJob.update({
        where: where(ref),
        data: { spec: spec as unknown as Prisma.InputJsonValue, generation: { increment: 1 } },
      });
      return true;
    },

    /**
     * The generation is the row's version: the update lands only where the row is still at the version
     * read (one conditional UPDATE), so two writers cannot both succeed from the same version.
     */
    async updateObject(ref: JobRef, update: JobObjectUpdate): Promise<JobObjectUpdateResult> {
      const row = await db.localJob.findUnique({ where: where(ref), select });
      if (!row) return { ok: false, reason: "not-found" };
      const current = String(row.generation);
      if (update.expectedVersion !== null && update.expectedVersion !== current)
        return { ok: false, reason: "conflict", expected: update.expectedVersion, current };
      const spec = updatedObject(toClusterJob(row).object, update);
      const { count } = await db.localJob.updateMany({
        where: { namespace: ref.namespace, name: ref.name, generation: row.generation },
        data: { spec: spec as unknown as Prisma.InputJsonValue, generation: { increment: 1 } },
      });
      if (count === 1) return { ok: true, resourceVersion: String(row.generation + 1) };
      const now = await db.localJob.findUnique({ where: where(ref), select: { generation: true } });
      if (!now) return { ok: false, reason: "not-found" };
      return { ok: false, reason: "conflict", expected: current, current: String(now.generation) };
    },

    async requestDeletion(ref: JobRef): Promise<boolean> {
      const result = await db.localJob.updateMany({
        where: { namespace: ref.namespace, name: ref.name, deletedAt: null },
        data: { deletedAt: new Date() },
      });
      return result.count > 0;
    },

    async remove(ref: JobRef): Promise<void> {
      await db.localJob.deleteMany({ where: { namespace: ref.namespace, name: ref.name } });
    },

    /** Generation and deletion marks, to notice changes made by other processes (the console). */
    async fingerprints(): Promise<Map<string, string>> {
      const rows = await db.localJob.findMany({
        select: { namespace: true, name: true, generation: true, deletedAt: true },
      });
      return new Map(
        rows.map((row) => [
          `${row.namespace}/${row.name}`,
          `${row.generation}:${row.deletedAt?.getTime() ?? ""}`,
        ]),
      );
    },
  };
}

export type JobStore = ReturnType<typeof createJobStore>;
