export { diffPolicyYaml } from "./diff";
export { dryRun, MAX_DRY_RUN_BYTES, MAX_DRY_RUN_LINES } from "./dry-run";
export { explainPolicy, explainRule } from "./explain";
export { FIELD_DOCS } from "./field-docs";
export { MAX_POLICY_YAML_BYTES, parsePolicyYaml, policyToYaml } from "./policy-yaml";
export { POLICY_TEMPLATES } from "./templates";
export type * from "./types";
