import type { CoreV1Api } from "@kubernetes/client-node";
import type { ClusterJob, JobRef } from "@/server/cluster/types";
import { jobKey } from "@/server/cluster/types";
import { JOB_API_VERSION, JOB_KIND } from "@/server/domain/job-spec/job-spec.schema";
import { tolerate } from "./api-calls";
import { LABEL_JOB } from "./objects";

export type JobServices = {
  /** One create per job, however many of its pods are being created at the same time. */
  ensure(job: ClusterJob): Promise<void>;
  /** Deletes the job's service (gone already is fine). */
  remove(ref: JobRef): Promise<void>;
};

/**
 * Each job's headless Service (named as the job, owned by it): its pods' DNS names resolve through it
 * while they are not ready, as rendezvous needs before the ranks start.
 */
export function createJobServices(core: CoreV1Api): JobServices {
  const servicesMade = new Map<string, Promise<void>>();

  const createService = (job: ClusterJob) =>
    tolerate([409], () =>
      core.createNamespacedService({
        namespace: job.ref.namespace,
        body: {
          metadata: {
            name: job.ref.name,
            namespace: job.ref.namespace,
            labels: { [LABEL_JOB]: job.ref.name },
            ownerReferences: [
              {
                apiVersion: JOB_API_VERSION,
                kind: JOB_KIND,
                name: job.ref.name,
                uid: job.uid,
                controller: true,
              },
            ],
          },
          spec: {
            clusterIP: "None",
            selector: { [LABEL_JOB]: job.ref.name },
            publishNotReadyAddresses: true,
          },
        },
      }),
    );

  return {
    ensure(job) {
      const key = jobKey(job.ref);
      let made = servicesMade.get(key);
      if (!made) {
        made = createService(job).then(() => undefined);
        servicesMade.set(key, made);
        // A failed create is tried again by the next pod.
        made.catch(() => servicesMade.delete(key));
      }
      return made;
    },
    async remove(ref) {
      await tolerate([404], () => core.deleteNamespacedService({ ...ref }));
      servicesMade.delete(jobKey(ref));
    },
  };
}
