import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { FULL_JOB_YAML } from "@/server/domain/job-spec/job-spec.fixtures";
import { jobSpecSchema } from "@/server/domain/job-spec/job-spec.schema";
import { jobStatusSchema } from "@/server/domain/job-spec/job-status.schema";
import {
  assertStructural,
  buildCrd,
  CRD_FILE,
  CRD_OWNER_ANNOTATION,
  inlineRefs,
  renderCrdYaml,
  type SchemaNode,
  toStructural,
} from "./crd";

const crd = buildCrd();
const [version] = crd.spec.versions;
const root = version?.schema.openAPIV3Schema ?? {};

/** Follows `properties` (and `items` for "[]") from the root; throws on a missing step. */
function at(path: string): SchemaNode {
  return path.split(".").reduce<SchemaNode>((node, step) => {
    const next =
      step === "[]" ? node.items : (node.properties as Record<string, unknown> | undefined)?.[step];
    if (typeof next !== "object" || next === null) throw new Error(`no schema at ${path} (step ${step})`);
    return next as SchemaNode;
  }, root);
}

/** The paths the apiserver would prune from `value` (fields the schema neither declares nor preserves). */
function prunedPaths(value: unknown, node: SchemaNode, path = ""): string[] {
  if (Array.isArray(value)) {
    const items = (node.items ?? {}) as SchemaNode;
    return value.flatMap((item, index) => prunedPaths(item, items, `${path}[${index}]`));
  }
  if (typeof value !== "object" || value === null) return [];
  const properties = (node.properties ?? {}) as Record<string, SchemaNode>;
  const extra = node.additionalProperties as SchemaNode | undefined;
  const preserve = node["x-kubernetes-preserve-unknown-fields"] === true;
  return Object.entries(value).flatMap(([key, child]) => {
    const schema = properties[key] ?? extra;
    if (schema) return prunedPaths(child, schema, `${path}.${key}`);
    return preserve ? [] : [`${path}.${key}`];
  });
}

describe("the HyperPodPyTorchJob CRD", () => {
  it("has HyperPod's identity and marks Rebound as its owner", () => {
    expect(crd.metadata.name).toBe("hyperpodpytorchjobs.sagemaker.amazonaws.com");
    expect(crd.spec).toMatchObject({
      group: "sagemaker.amazonaws.com",
      scope: "Namespaced",
      names: { kind: "HyperPodPyTorchJob", plural: "hyperpodpytorchjobs", singular: "hyperpodpytorchjob" },
    });
    expect(crd.metadata.annotations[CRD_OWNER_ANNOTATION]).toBe("rebound");
    expect(crd.metadata.labels["app.kubernetes.io/managed-by"]).toBe("rebound");
    expect(version).toMatchObject({ name: "v1", served: true, storage: true, subresources: { status: {} } });
  });

  it("has a structural schema", () => {
    expect(() => assertStructural(root)).not.toThrow();
  });

  it("is what deploy/ holds (run `npm run generate:crd` after changing the job schema)", () => {
    expect(readFileSync(CRD_FILE, "utf8")).toBe(renderCrdYaml());
  });

  it("declares every top-level spec and status field of the zod schema", () => {
    expect(Object.keys(at("spec").properties as object).sort()).toEqual(
      Object.keys(jobSpecSchema.shape).sort(),
    );
    expect(Object.keys(at("status").properties as object).sort()).toEqual(
      Object.keys(jobStatusSchema.shape).sort(),
    );
    expect(at("spec").required).toEqual(["replicaSpecs"]);
  });

  it("keeps nprocPerNode a string, with its pattern and default", () => {
    expect(at("spec.nprocPerNode")).toMatchObject({ type: "string", default: "auto" });
    expect(at("spec.nprocPerNode").pattern).toBeDefined();
  });

  it("carries enums, bounds and defaults", () => {
    expect(at("spec.runPolicy.cleanPodPolicy")).toMatchObject({
      enum: ["All", "OnlyComplete", "None"],
      default: "All",
    });
    expect(at("spec.runPolicy.logMonitoringConfiguration.[].operator").enum).toEqual([
      "gt",
      "lt",
      "eq",
      "gteq",
      "lteq",
    ]);
    expect(at("status.conditions.[].status").enum).toEqual(["True", "False", "Unknown"]);
    expect(at("spec.runPolicy.ttlSecondsAfterFinished")).toEqual({ type: "integer", minimum: -1 });
    expect(at("spec.replicaSpecs")).toMatchObject({ type: "array", minItems: 1 });
    expect(at("spec.runPolicy.restartPolicy").required).toEqual(["evalPeriodSeconds"]);
  });

  it("preserves the pod template and the loose status objects, and maps int-or-string unions", () => {
    expect(at("spec.replicaSpecs.[].template")["x-kubernetes-preserve-unknown-fields"]).toBe(true);
    expect(at("status")["x-kubernetes-preserve-unknown-fields"]).toBe(true);
    expect(at("status.masterPort")).toEqual({ "x-kubernetes-int-or-string": true });
    expect(at("status.managerPods")).toEqual({ "x-kubernetes-preserve-unknown-fields": true });
    expect(at("spec.replicaSpecs.[].template.metadata.labels")).toEqual({
      type: "object",
      additionalProperties: { type: "string" },
    });
  });

  it("lets the full example job through apiserver pruning unchanged", () => {
    // The apiserver handles metadata itself; the schema prunes spec and status.
    const { metadata: _metadata, ...job } = parse(FULL_JOB_YAML) as Record<string, unknown>;
    expect(prunedPaths(job, root)).toEqual([]);
    expect(prunedPaths({ spec: { nprocPerNode: "8", typo: 1 } }, root)).toEqual([".spec.typo"]);
  });

  it("shows Status, Restarts and Age columns", () => {
    expect(version?.additionalPrinterColumns.map((column) => [column.name, column.jsonPath])).toEqual([
      ["Status", ".status.conditions[-1:].type"],
      ["Restarts", ".status.restartCount"],
      ["Age", ".metadata.creationTimestamp"],
    ]);
  });
});

describe("assertStructural", () => {
  const valid = {
    type: "object",
    properties: { spec: { type: "object", properties: { n: { type: "integer" } } } },
  };

  it("accepts a typed tree", () => {
    expect(() => assertStructural(valid)).not.toThrow();
  });

  it.each([
    [
      "a missing type",
      { type: "object", properties: { spec: { properties: {} } } },
      /\.properties\.spec: missing type/,
    ],
    [
      "a $ref",
      { type: "object", properties: { spec: { $ref: "#/$defs/Spec" } } },
      /\.properties\.spec: \$ref is not allowed/,
    ],
    [
      "additionalProperties beside properties",
      { type: "object", properties: { a: { type: "string" } }, additionalProperties: { type: "string" } },
      /openAPIV3Schema: both properties and additionalProperties/,
    ],
    [
      "additionalProperties: false",
      { type: "object", additionalProperties: false },
      /additionalProperties not a schema/,
    ],
    [
      "an untyped array item",
      { type: "object", properties: { l: { type: "array", items: {} } } },
      /\.l\.items: missing type/,
    ],
    [
      "an array without items",
      { type: "object", properties: { l: { type: "array" } } },
      /\.l: array without/,
    ],
    [
      "a type list",
      { type: "object", properties: { p: { type: ["string", "number"] } } },
      /\.p: invalid type/,
    ],
    [
      "a type inside anyOf",
      { type: "object", properties: { p: { type: "string", anyOf: [{ type: "string" }] } } },
      /\.p\.anyOf\[0\]: type inside a junctor/,
    ],
    [
      "a non-RE2 pattern",
      { type: "object", properties: { p: { type: "string", pattern: "^(?=a)" } } },
      /\.p: pattern is not RE2/,
    ],
    [
      "a default of the wrong type",
      { type: "object", properties: { n: { type: "integer", default: "x" } } },
      /\.n: default "x" is not of type integer/,
    ],
    [
      "restricted metadata",
      {
        type: "object",
        properties: { metadata: { type: "object", properties: { labels: { type: "object" } } } },
      },
      /\.metadata: only name and generateName/,
    ],
    ["a non-object root", { type: "string" }, /the root must be of type object/],
  ])("rejects %s, naming its path", (_name, schema, message) => {
    expect(() => assertStructural(schema)).toThrow(message);
  });

  it("reports every violation at once", () => {
    const broken = { type: "object", properties: { a: {}, b: { $ref: "#/x", type: "string" } } };
    expect(() => assertStructural(broken)).toThrow(/properties\.a: missing type[\s\S]*properties\.b: \$ref/);
  });
});

describe("toStructural", () => {
  it("turns nullable unions into nullable and other unions into free-form nodes", () => {
    expect(toStructural({ anyOf: [{ type: "string" }, { type: "null" }] })).toEqual({
      type: "string",
      nullable: true,
    });
    expect(toStructural({ anyOf: [{ type: "string" }, { type: "object" }] })).toEqual({
      "x-kubernetes-preserve-unknown-fields": true,
    });
    expect(
      toStructural({
        anyOf: [
          { const: "a", type: "string" },
          { type: "string", enum: ["b"] },
        ],
      }),
    ).toEqual({
      type: "string",
      enum: ["a", "b"],
    });
  });

  it("drops what structural schemas reject and keeps valid defaults only", () => {
    expect(toStructural({ type: "object", properties: {}, additionalProperties: false })).toEqual({
      type: "object",
      properties: {},
    });
    expect(toStructural({ type: "string", pattern: "^(?!x)", format: "email" })).toEqual({
      type: "string",
      format: "email",
    });
    expect(toStructural({ type: "integer", exclusiveMinimum: 0 })).toEqual({
      type: "integer",
      minimum: 0,
      exclusiveMinimum: true,
    });
    expect(toStructural({ type: "string", enum: ["a"], default: "b" })).toEqual({
      type: "string",
      enum: ["a"],
    });
  });

  it("inlines $defs references and refuses recursive ones", () => {
    const schema = {
      $defs: { Name: { type: "string" } },
      type: "object",
      properties: { n: { $ref: "#/$defs/Name" } },
    };
    expect(inlineRefs(schema, schema)).toEqual({ type: "object", properties: { n: { type: "string" } } });
    const recursive = { type: "object", properties: { self: { $ref: "#" } } };
    expect(() => inlineRefs(recursive, recursive)).toThrow(/recursive schema via #/);
  });
});
