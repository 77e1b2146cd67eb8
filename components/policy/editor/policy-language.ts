/**
 * The policy editor's binding to the domain: problems from parsePolicyYaml (pure and browser-safe; the
 * server runs it again) and the runPolicy field catalog with FIELD_DOCS, built on first use.
 */
import { FIELD_DOCS, parsePolicyYaml } from "@/server/domain/policy";
import type { PolicyLanguage } from "./extensions";
import { buildFieldCatalog, type PolicyField } from "./field-catalog";
import { runPolicyJsonSchema } from "./run-policy-json-schema";

let catalog: ReadonlyMap<string, PolicyField> | null = null;

export const runPolicyLanguage: PolicyLanguage = {
  check(text) {
    const parsed = parsePolicyYaml(text);
    return parsed.ok ? { errors: [], warnings: parsed.warnings } : { errors: parsed.errors, warnings: [] };
  },
  fields() {
    catalog ??= buildFieldCatalog(runPolicyJsonSchema(), FIELD_DOCS);
    return catalog;
  },
};
