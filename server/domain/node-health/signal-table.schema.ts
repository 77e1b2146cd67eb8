import { z } from "zod";

/**
 * The table of node signals: which fact of a Node object says what about the node, and what the operator
 * then does with the job pods on it. Data, validated here, so that it can come from somewhere else than
 * the shipped defaults (default-signals.ts) without a code change.
 *
 * - `source`: who sets the fact (HyperPod's agents, Kubernetes itself, NVIDIA NVSentinel,
 *   node-problem-detector, the EKS node monitoring agent, the NVIDIA device plugin).
 * - `read`: a label (present, value starting with `valuePrefix`, not one of `except`), a condition (type
 *   and reason as `*` globs, one of the statuses, or absent with `orAbsent`), a taint (key, optional
 *   effect), the cordon (`spec.unschedulable`), allocatable of a resource below its capacity, or a metric
 *   (a Prometheus series of the node, e.g. the DCGM exporter's, with one of `values` or at least `atLeast`;
 *   a series at 0 is no signal: DCGM's "no Xid" and "health passed").
 * - `meaning`: unusable now, degraded, planned maintenance, or healthy (a matched healthy row changes
 *   nothing).
 * - `action`: replace the job's pods on the node now, after `graceSeconds`, only avoid the node for new
 *   pods, or nothing (healthy rows only).
 */

export const NODE_SIGNAL_SOURCES = [
  "hyperpod",
  "kubernetes",
  "nvsentinel",
  "npd",
  "eks",
  "device-plugin",
  "dcgm",
] as const;
export const NODE_MEANINGS = ["unusable", "degraded", "maintenance", "healthy"] as const;
export const NODE_ACTIONS = ["replace-now", "replace-after-grace", "avoid", "none"] as const;
export const CONDITION_STATUSES = ["True", "False", "Unknown"] as const;
export const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"] as const;

export type NodeSignalSource = (typeof NODE_SIGNAL_SOURCES)[number];
export type NodeMeaning = (typeof NODE_MEANINGS)[number];
export type NodeAction = (typeof NODE_ACTIONS)[number];

/** How a source is named to people (reasons, events). */
export const SOURCE_NAMES: Record<NodeSignalSource, string> = {
  hyperpod: "HyperPod",
  kubernetes: "Kubernetes",
  nvsentinel: "NVSentinel",
  npd: "node-problem-detector",
  eks: "EKS",
  "device-plugin": "NVIDIA device plugin",
  dcgm: "DCGM exporter",
};

/** A Kubernetes name: a label key, condition type or resource name (with an optional `prefix/`). */
const NAME = /^([a-z0-9.-]+\/)?[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$/;
/** The same, where `*` stands for any run of characters. */
const GLOB = /^[A-Za-z0-9._/<>*-]+$/;

const nameSchema = z.string().regex(NAME, { error: "expected a Kubernetes name such as nvidia.com/gpu" });
const globSchema = z.string().regex(GLOB, { error: "expected a name, where * stands for any characters" });

const labelReadSchema = z.strictObject({
  kind: z.literal("label"),
  key: nameSchema,
  valuePrefix: z.string().optional(),
  except: z.array(z.string()).optional(),
});

const conditionReadSchema = z
  .strictObject({
    kind: z.literal("condition"),
    type: globSchema,
    status: z.array(z.enum(CONDITION_STATUSES)).min(1, { error: "expected at least one status" }),
    reason: globSchema.optional(),
    orAbsent: z.boolean().optional(),
  })
  .refine((read) => !read.orAbsent || !read.type.includes("*"), {
    error: "orAbsent needs one condition type, not a pattern",
    path: ["orAbsent"],
  });

const taintReadSchema = z.strictObject({
  kind: z.literal("taint"),
  key: nameSchema,
  effect: z.enum(TAINT_EFFECTS).optional(),
});

const cordonReadSchema = z.strictObject({ kind: z.literal("cordon") });

const allocatableReadSchema = z.strictObject({
  kind: z.literal("allocatable-below-capacity"),
  resource: nameSchema,
});

/** A Prometheus metric name (the exposition format's). */
const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const positive = z.number().refine((value) => Number.isFinite(value) && value !== 0, {
  error: "expected a finite number other than 0 (a series at 0 is no signal)",
});

const metricReadSchema = z
  .strictObject({
    kind: z.literal("metric"),
    name: z.string().regex(METRIC_NAME, { error: "expected a metric name such as DCGM_FI_DEV_XID_ERRORS" }),
    /** Label values the series must have (`*` globs), e.g. `health_watch: "MEM"`. */
    labels: z
      .record(z.string().regex(LABEL_NAME, { error: "expected a Prometheus label name" }), z.string())
      .optional(),
    values: z.array(positive).min(1, { error: "expected at least one value" }).optional(),
    atLeast: z
      .number()
      .refine((value) => Number.isFinite(value) && value > 0, {
        error: "expected a number above 0 (a series at 0 is no signal)",
      })
      .optional(),
  })
  .refine((read) => (read.values === undefined) !== (read.atLeast === undefined), {
    error: "a metric read takes one of values and atLeast",
    path: ["values"],
  });

export const signalReadSchema = z.discriminatedUnion("kind", [
  labelReadSchema,
  conditionReadSchema,
  taintReadSchema,
  cordonReadSchema,
  allocatableReadSchema,
  metricReadSchema,
]);

export const nodeSignalRuleSchema = z
  .strictObject({
    id: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]*$/, { error: "expected a lower-case id such as nvsentinel-gpu" }),
    source: z.enum(NODE_SIGNAL_SOURCES),
    read: signalReadSchema,
    meaning: z.enum(NODE_MEANINGS),
    action: z.enum(NODE_ACTIONS),
    graceSeconds: z.int().min(0).optional(),
  })
  .refine((rule) => (rule.action === "replace-after-grace") === (rule.graceSeconds !== undefined), {
    error: "graceSeconds goes with action replace-after-grace, and only with it",
    path: ["graceSeconds"],
  })
  .refine((rule) => (rule.meaning === "healthy") === (rule.action === "none"), {
    error: "a healthy meaning takes action none, and only it",
    path: ["action"],
  });

export const nodeSignalTableSchema = z
  .array(nodeSignalRuleSchema)
  .refine((rules) => new Set(rules.map((rule) => rule.id)).size === rules.length, {
    error: "rule ids must be unique",
  });

export type SignalRead = z.infer<typeof signalReadSchema>;
export type NodeSignalRule = z.infer<typeof nodeSignalRuleSchema>;
export type NodeSignalTable = z.infer<typeof nodeSignalTableSchema>;
