/** The runPolicy field catalog the editor completes and documents, with the domain's FIELD_DOCS; built on first use. */
import { FIELD_DOCS } from "@/server/domain/policy";
import { buildFieldCatalog, type PolicyField } from "./field-catalog";
import { runPolicyJsonSchema } from "./run-policy-json-schema";

let catalog: ReadonlyMap<string, PolicyField> | null = null;

/** Every runPolicy field by path, with its docs. */
export function runPolicyFields(): ReadonlyMap<string, PolicyField> {
  catalog ??= buildFieldCatalog(runPolicyJsonSchema(), FIELD_DOCS);
  return catalog;
}
