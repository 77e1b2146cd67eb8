/**
 * The operator's runPolicy zod schema as JSON Schema (as the user writes it: defaults optional), read back
 * through a zod schema of the few keywords the editor's field catalog uses.
 */
import { z } from "zod";
import { runPolicySchema } from "@/server/domain/job-spec/run-policy.schema";
import type { SchemaNode } from "./field-catalog";

const schemaNodeSchema: z.ZodType<SchemaNode> = z.lazy(() =>
  z.looseObject({
    type: z.union([z.string(), z.array(z.string())]).optional(),
    enum: z.array(z.unknown()).optional(),
    anyOf: z.array(schemaNodeSchema).optional(),
    properties: z.record(z.string(), schemaNodeSchema).optional(),
    required: z.array(z.string()).optional(),
    items: schemaNodeSchema.optional(),
  }),
);

export function runPolicyJsonSchema(): SchemaNode {
  return schemaNodeSchema.parse(z.toJSONSchema(runPolicySchema, { io: "input", unrepresentable: "any" }));
}
