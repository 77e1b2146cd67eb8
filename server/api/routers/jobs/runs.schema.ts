import { z } from "zod";
import { jobRefSchema } from "@/server/services/jobs/jobs.schema";

/** A past run of a job name: the job's ref and the run's uid (a Kubernetes uid or a local job's id). */
export const pastRunInputSchema = z.strictObject({
  job: jobRefSchema,
  uid: z.string().min(1).max(64),
});
export type PastRunInput = z.infer<typeof pastRunInputSchema>;
