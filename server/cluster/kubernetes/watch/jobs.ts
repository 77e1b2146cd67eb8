import type { CustomObjectsApi } from "@kubernetes/client-node";
import type { ClusterJob, JobObjectUpdate, JobObjectUpdateResult, JobRef } from "@/server/cluster/types";
import { jobKey } from "@/server/cluster/types";
import { JOB_GROUP, JOB_PLURAL, JOB_VERSION } from "@/server/domain/job-spec/job-spec.schema";
import type { JobStatus } from "@/server/domain/job-spec/job-status.schema";
import type { Logger } from "@/server/log";
import {
  CONFLICT_RETRIES,
  JOB_API,
  MERGE_PATCH,
  retryOnConflict,
  statusCode,
  tolerate,
  tolerateGone,
  type WatchSettings,
} from "../api-calls";
import { createInformer, type Informer, type KubeObject, type ObjectList } from "../informer";
import { JOB_FINALIZER, type JobObject, jobUpdatePatch, toClusterJob } from "../objects";

export type JobWatch = {
  readonly informer: Informer<JobObject & KubeObject>;
  /** The job object as cached. */
  object(ref: JobRef): (JobObject & KubeObject) | undefined;
  /** Every job our schema accepts (the others are logged and left out). */
  list(): ClusterJob[];
  /** The job, with the operator's finalizer added first when it lacks one. */
  get(ref: JobRef): Promise<ClusterJob | null>;
  updateStatus(ref: JobRef, status: JobStatus): Promise<void>;
  setSuspended(ref: JobRef, suspend: boolean): Promise<boolean>;
  update(ref: JobRef, update: JobObjectUpdate): Promise<JobObjectUpdateResult>;
  requestDeletion(ref: JobRef): Promise<void>;
  removeFinalizer(ref: JobRef): Promise<void>;
};

/**
 * The HyperPodPyTorchJob objects: their informer, their conversion to ClusterJob, and every write to them
 * (status through the status subresource with conflict retry, finalizer, spec updates), each put into the
 * cache at once. A console (`writer` false) adds no finalizer.
 */
export function createJobWatch(opts: {
  settings: WatchSettings;
  custom: CustomObjectsApi;
  log: Logger;
  writer: boolean;
  /** A job changed (null: some job, or any). */
  emit: (ref: JobRef | null) => void;
}): JobWatch {
  const { custom, log, writer, emit } = opts;
  const jobs = createInformer<JobObject & KubeObject>({
    ...opts.settings,
    name: "jobs",
    watchPath: `/apis/${JOB_GROUP}/${JOB_VERSION}/${JOB_PLURAL}`,
    list: async () => (await custom.listClusterCustomObject(JOB_API)) as ObjectList<JobObject & KubeObject>,
    onEvent: (_type, object) =>
      emit(
        object ? { namespace: object.metadata?.namespace ?? "", name: object.metadata?.name ?? "" } : null,
      ),
  });

  const jobObject = (ref: JobRef) => jobs.get(jobKey(ref));

  const ensureFinalizer = async (object: JobObject) => {
    const finalizers = object.metadata?.finalizers ?? [];
    if (!writer || object.metadata?.deletionTimestamp || finalizers.includes(JOB_FINALIZER)) return;
    const patched = (await custom.patchNamespacedCustomObject(
      {
        ...JOB_API,
        namespace: object.metadata?.namespace ?? "",
        name: object.metadata?.name ?? "",
        body: {
          metadata: {
            finalizers: [...finalizers, JOB_FINALIZER],
            resourceVersion: object.metadata?.resourceVersion,
          },
        },
      },
      MERGE_PATCH,
    )) as JobObject & KubeObject;
    jobs.upsert(patched);
  };

  const toJob = (object: JobObject): ClusterJob | null => {
    const result = toClusterJob(object);
    if (result.ok) return result.job;
    log.warn("ignoring a job our schema rejects", {
      job: `${object.metadata?.namespace}/${object.metadata?.name}`,
      errors: result.errors.slice(0, 5),
    });
    return null;
  };

  const readJob = async (ref: JobRef): Promise<(JobObject & KubeObject) | null> => {
    try {
      return (await custom.getNamespacedCustomObject({ ...JOB_API, ...ref })) as JobObject & KubeObject;
    } catch (error) {
      if (statusCode(error) === 404) return null;
      throw error;
    }
  };

  // The cached object first; after a conflict, the API server's latest.
  const replaceStatus = (ref: JobRef, status: JobStatus) =>
    retryOnConflict(`status of ${jobKey(ref)}`, async (attempt) => {
      const object = (attempt === 0 ? jobObject(ref) : undefined) ?? (await readJob(ref));
      if (!object) return;
      const updated = await custom.replaceNamespacedCustomObjectStatus({
        ...JOB_API,
        ...ref,
        body: { ...object, status },
      });
      jobs.upsert(updated as JobObject & KubeObject);
    });

  const removeFinalizer = (ref: JobRef) =>
    retryOnConflict(`finalizer of ${jobKey(ref)}`, async () => {
      const metadata = (await readJob(ref))?.metadata;
      if (!metadata?.finalizers?.includes(JOB_FINALIZER)) return;
      const body = {
        metadata: {
          finalizers: metadata.finalizers.filter((name) => name !== JOB_FINALIZER),
          resourceVersion: metadata.resourceVersion,
        },
      };
      await tolerate([404], () =>
        custom.patchNamespacedCustomObject({ ...JOB_API, ...ref, body }, MERGE_PATCH),
      );
    });

  /** Patches with the version given; the API server's 409 comes back as null. */
  const patchAt = async (ref: JobRef, body: unknown): Promise<(JobObject & KubeObject) | null> => {
    try {
      return (await custom.patchNamespacedCustomObject(
        { ...JOB_API, ...ref, body },
        MERGE_PATCH,
      )) as JobObject & KubeObject;
    } catch (error) {
      if (statusCode(error) === 409) return null;
      throw error;
    }
  };

  /** The conflict when the caller's expected version is not the job's spec version now. */
  const staleVersion = (object: JobObject, update: JobObjectUpdate): JobObjectUpdateResult | null => {
    const generation = String(object.metadata?.generation ?? 1);
    if (update.expectedVersion === null || update.expectedVersion === generation) return null;
    return { ok: false, reason: "conflict", expected: update.expectedVersion, current: generation };
  };

  /**
   * One try of an update (issue 12's apply and shadow): the job must still be at the spec version the caller
   * read (metadata.generation, which status writes leave alone), else a conflict naming the version now;
   * then one merge patch carrying the resourceVersion just read, so the API server refuses it (409) if
   * anything wrote in between. Null after such a 409: read again and check again.
   */
  const tryUpdate = async (ref: JobRef, update: JobObjectUpdate): Promise<JobObjectUpdateResult | null> => {
    const object = await readJob(ref);
    if (!object) return { ok: false, reason: "not-found" };
    const stale = staleVersion(object, update);
    if (stale) return stale;
    const patched = await tolerateGone(() => patchAt(ref, jobUpdatePatch(object, update)));
    if (patched === "gone") return { ok: false, reason: "not-found" };
    if (!patched) return null;
    jobs.upsert(patched);
    return { ok: true, resourceVersion: String(patched.metadata?.generation ?? 1) };
  };

  return {
    informer: jobs,
    object: jobObject,
    list: () => jobs.list().flatMap((object) => toJob(object) ?? []),
    async get(ref) {
      const object = jobObject(ref);
      if (!object) return null;
      await ensureFinalizer(object);
      return toJob(object);
    },
    updateStatus: replaceStatus,
    async setSuspended(ref, suspend) {
      try {
        const body = { spec: { runPolicy: { suspend } } };
        jobs.upsert(
          (await custom.patchNamespacedCustomObject({ ...JOB_API, ...ref, body }, MERGE_PATCH)) as never,
        );
        return true;
      } catch (error) {
        if (statusCode(error) === 404) return false;
        throw error;
      }
    },
    async update(ref, update) {
      for (let attempt = 0; attempt < CONFLICT_RETRIES; attempt += 1) {
        const result = await tryUpdate(ref, update);
        if (result) return result;
      }
      throw new Error(`update of ${jobKey(ref)}: still conflicting after ${CONFLICT_RETRIES} attempts`);
    },
    async requestDeletion(ref) {
      await tolerate([404], () => custom.deleteNamespacedCustomObject({ ...JOB_API, ...ref }));
    },
    removeFinalizer,
  };
}
