import { z } from "zod";
import { MAX_NODE_SIGNAL_TEXT } from "@/server/domain/node-health/table";

/** Inputs of the node-signal table's procedures (the table itself is checked by the service, row by row). */
const versionSchema = z.int().min(1);

export const nodeSignalsUpdateInputSchema = z.strictObject({
  version: versionSchema,
  /** The whole table as YAML or JSON: a list of rows (docs/node-signals.md). */
  text: z.string().max(MAX_NODE_SIGNAL_TEXT),
});

export const nodeSignalsCordonInputSchema = z.strictObject({
  version: versionSchema,
  /** On: a cordon alone replaces the pods on the node now. Off (default): new pods avoid it, as Kubernetes. */
  movesPods: z.boolean(),
});

export const nodeSignalsResetInputSchema = z.strictObject({ version: versionSchema });

export type NodeSignalsUpdateInput = z.infer<typeof nodeSignalsUpdateInputSchema>;
export type NodeSignalsCordonInput = z.infer<typeof nodeSignalsCordonInputSchema>;
