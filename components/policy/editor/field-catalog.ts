/**
 * Every runPolicy field the editor completes and documents, read from the JSON Schema of the operator's own
 * zod schema (z.toJSONSchema(runPolicySchema)), so a field added there is offered here, with the words of
 * the domain's FIELD_DOCS (server/domain/policy) for its hover and completion info.
 */

/** A field's docs as FIELD_DOCS writes them. */
export type FieldDocText = { summary: string; detail?: string; example?: string };

export type FieldKind = "mapping" | "list" | "integer" | "number" | "string" | "boolean" | "choice";

export type PolicyField = {
  /** `logMonitoringConfiguration[].logPattern` */
  path: string;
  /** The mapping it belongs to (`logMonitoringConfiguration[]`; "" at the top). */
  parent: string;
  key: string;
  kind: FieldKind;
  /** The values to offer: an enum's, or true/false. */
  values: readonly string[];
  required: boolean;
  doc: FieldDocText | undefined;
};

/** The part of a JSON Schema node this reads. */
export type SchemaNode = {
  type?: string | string[];
  enum?: readonly unknown[];
  anyOf?: readonly SchemaNode[];
  properties?: Record<string, SchemaNode>;
  required?: readonly string[];
  items?: SchemaNode;
};

/** The node and its anyOf options, flattened. */
function variants(node: SchemaNode): SchemaNode[] {
  return [node, ...(node.anyOf ?? []).flatMap(variants)];
}

function typesOf(node: SchemaNode): Set<string> {
  const types = variants(node).flatMap((each) => (each.type === undefined ? [] : [each.type].flat()));
  return new Set(types);
}

function kindOf(node: SchemaNode, values: readonly string[]): FieldKind {
  const types = typesOf(node);
  if (values.length > 0 && !types.has("boolean")) return "choice";
  if (types.has("object")) return "mapping";
  if (types.has("array")) return "list";
  if (types.has("boolean")) return "boolean";
  if (types.has("integer")) return "integer";
  if (types.has("number")) return "number";
  return "string";
}

function valuesOf(node: SchemaNode): string[] {
  const listed = variants(node).flatMap((each) => (each.enum ?? []).filter((v) => typeof v === "string"));
  if (listed.length > 0) return listed as string[];
  return typesOf(node).has("boolean") ? ["true", "false"] : [];
}

function childPath(parent: string, key: string): string {
  return parent === "" ? key : `${parent}.${key}`;
}

/** The mapping node under a field: itself, or its list's items. */
function mappingOf(node: SchemaNode): { node: SchemaNode; suffix: string } | null {
  for (const each of variants(node)) {
    if (each.properties !== undefined) return { node: each, suffix: "" };
    if (each.items?.properties !== undefined) return { node: each.items, suffix: "[]" };
  }
  return null;
}

/** Every field of the schema, by path. */
export function buildFieldCatalog(
  schema: SchemaNode,
  docs: Readonly<Record<string, FieldDocText>>,
): ReadonlyMap<string, PolicyField> {
  const catalog = new Map<string, PolicyField>();
  const visit = (node: SchemaNode, parent: string) => {
    const required = new Set(node.required ?? []);
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      const path = childPath(parent, key);
      const values = valuesOf(child);
      const kind = kindOf(child, values);
      catalog.set(path, { path, parent, key, kind, values, required: required.has(key), doc: docs[path] });
      const inner = mappingOf(child);
      if (inner !== null) visit(inner.node, `${path}${inner.suffix}`);
    }
  };
  visit(schema, "");
  return catalog;
}

/** The fields of one mapping, required ones first, then in the schema's order. */
export function fieldsUnder(catalog: ReadonlyMap<string, PolicyField>, parent: string): PolicyField[] {
  const fields = [...catalog.values()].filter((field) => field.parent === parent);
  return [...fields.filter((field) => field.required), ...fields.filter((field) => !field.required)];
}
