import { z } from "zod";
import { dnsLabelSchema, findDuplicates, stringMapSchema } from "./common.schema";
import { elasticPolicySchema, withDefaultMinReplicas } from "./elastic-policy.schema";
import { jobStatusSchema } from "./job-status.schema";
import { replicaSpecSchema } from "./replica-spec.schema";
import { runPolicySchema } from "./run-policy.schema";

export type { ElasticPolicy } from "./elastic-policy.schema";
export type {
  JobCondition,
  JobStatus,
  LatestFaultyPodInstanceList,
  RestartStatus,
} from "./job-status.schema";
export type { PodTemplate, ReplicaSpec } from "./replica-spec.schema";
export type { RestartPolicy, RunPolicy } from "./run-policy.schema";

/** CRD identity (docs/hyperpod-compatibility.md, "The job resource"). */
export const JOB_GROUP = "sagemaker.amazonaws.com";
export const JOB_VERSION = "v1";
export const JOB_API_VERSION = `${JOB_GROUP}/${JOB_VERSION}` as const;
export const JOB_KIND = "HyperPodPyTorchJob";
/** Spelling used by the task-governance docs and Kueue's external framework id; accepted on input. */
export const JOB_KIND_ALIAS = "HyperPodPytorchJob";
export const JOB_PLURAL = "hyperpodpytorchjobs";
export const JOB_CRD_NAME = `${JOB_PLURAL}.${JOB_GROUP}`;

const NPROC_PER_NODE = /^(auto|cpu|gpu|[1-9][0-9]*)$/;

/** torchrun's `--nproc_per_node`: always a string in the CRD, even when it holds a number. */
export const nprocPerNodeSchema = z
  .string({
    error: (issue) =>
      typeof issue.input === "number"
        ? `expected a string: quote the number, e.g. nprocPerNode: "${issue.input}"`
        : 'expected "auto", "cpu", "gpu" or a positive integer as a quoted string',
  })
  .regex(NPROC_PER_NODE, { error: 'expected "auto", "cpu", "gpu" or a positive integer such as "8"' });

/** Metadata: only what we rely on is checked; server-set keys (uid, resourceVersion, …) pass through. */
export const jobMetadataSchema = z.looseObject({
  name: dnsLabelSchema,
  namespace: dnsLabelSchema.optional(),
  labels: stringMapSchema.optional(),
  annotations: stringMapSchema.optional(),
});

export const jobSpecSchema = z.strictObject({
  nprocPerNode: nprocPerNodeSchema.default("auto"),
  replicaSpecs: z
    .array(replicaSpecSchema, { error: "expected a list of replica specs" })
    .min(1, { error: "expected at least one replica spec" })
    .superRefine((specs, ctx) => {
      for (const [index, first] of findDuplicates(specs, (spec) => spec.name)) {
        ctx.addIssue({
          code: "custom",
          path: [index, "name"],
          message: `duplicate replica spec name "${specs[index]?.name}" (already used by replica spec ${first})`,
        });
      }
    }),
  runPolicy: runPolicySchema.prefault({}),
  elasticPolicy: elasticPolicySchema.optional(),
});

export const hyperPodPyTorchJobSchema = z.strictObject({
  apiVersion: z.literal(JOB_API_VERSION, { error: `expected "${JOB_API_VERSION}"` }),
  kind: z.enum([JOB_KIND, JOB_KIND_ALIAS], { error: `expected "${JOB_KIND}"` }),
  metadata: jobMetadataSchema,
  spec: jobSpecSchema.transform(withDefaultMinReplicas),
  status: jobStatusSchema.optional(),
});

export type JobMetadata = z.infer<typeof jobMetadataSchema>;
export type JobSpec = z.infer<typeof hyperPodPyTorchJobSchema>["spec"];
export type HyperPodPyTorchJob = z.infer<typeof hyperPodPyTorchJobSchema>;
/** What a user may write (defaults not yet applied), e.g. for manifest builders in the console. */
export type HyperPodPyTorchJobInput = z.input<typeof hyperPodPyTorchJobSchema>;
