import type { Prisma } from "@/generated/prisma/client";
import type { ClusterJob, JobRef } from "@/server/cluster/types";
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
    job: hyperPodPyTorchJobSchema.parse(row.spec),
    status: jobStatusSchema.parse(row.status),
    deleting: row.deletedAt !== null,
  };
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
        ...job.job,
        spec: { ...job.job.spec, runPolicy: { ...job.job.spec.runPolicy, suspend } },
      };
      await db.localJob.update({
        where: where(ref),
        data: { spec: spec as unknown as Prisma.InputJsonValue, generation: { increment: 1 } },
      });
      return true;
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
