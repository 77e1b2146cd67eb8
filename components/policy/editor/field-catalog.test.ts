import { describe, expect, it } from "vitest";
import { buildFieldCatalog, fieldsUnder } from "./field-catalog";
import { runPolicyJsonSchema } from "./run-policy-json-schema";

const schema = runPolicyJsonSchema();
const docs = {
  cleanPodPolicy: { summary: "which pods to delete when the job ends" },
  "logMonitoringConfiguration[].logPattern": { summary: "a regular expression", example: "'.*step.*'" },
};
const catalog = buildFieldCatalog(schema, docs);

describe("buildFieldCatalog over the operator's runPolicy schema", () => {
  it("lists every field, nested mappings and list items included", () => {
    expect(catalog.get("restartPolicy.evalPeriodSeconds")).toMatchObject({ kind: "integer", required: true });
    expect(catalog.get("restartPolicy")).toMatchObject({ kind: "mapping", required: false });
    expect(catalog.get("logMonitoringConfiguration")).toMatchObject({ kind: "list" });
    expect(catalog.get("logMonitoringConfiguration[].name")).toMatchObject({
      kind: "string",
      required: true,
    });
    expect(catalog.get("logMonitoringConfiguration[].metricThreshold")?.kind).toBe("number");
  });

  it("offers enum values and true/false", () => {
    expect(catalog.get("cleanPodPolicy")).toMatchObject({
      kind: "choice",
      values: ["All", "OnlyComplete", "None"],
    });
    expect(catalog.get("logMonitoringConfiguration[].operator")).toMatchObject({
      kind: "choice",
      values: ["gt", "lt", "eq", "gteq", "lteq"],
    });
    expect(catalog.get("logMonitoringConfiguration[].faultOnMatch")).toMatchObject({
      kind: "boolean",
      values: ["true", "false"],
    });
  });

  it("attaches the docs by path", () => {
    expect(catalog.get("cleanPodPolicy")?.doc?.summary).toBe("which pods to delete when the job ends");
    expect(catalog.get("logMonitoringConfiguration[].logPattern")?.doc?.example).toBe("'.*step.*'");
    expect(catalog.get("jobMaxRetryCount")?.doc).toBeUndefined();
  });

  it("lists a mapping's fields required first", () => {
    const rule = fieldsUnder(catalog, "logMonitoringConfiguration[]").map((field) => field.key);
    expect(rule.slice(0, 2)).toEqual(["name", "logPattern"]);
    expect(rule).toContain("expectedRecurringFrequencyInSeconds");
    expect(fieldsUnder(catalog, "restartPolicy")[0]?.key).toBe("evalPeriodSeconds");
    expect(fieldsUnder(catalog, "").map((field) => field.key)).toContain("activeDeadlineSeconds");
  });
});
