/**
 * Completion and hover for runPolicy fields: keys of the mapping at the cursor (required first, those already
 * written left out), enum and true/false values, each with its FIELD_DOCS summary; hover over a key shows
 * its docs. The decisions are pure functions of the text (tested); the CodeMirror wiring is in extensions.ts.
 */
import { fieldsUnder, type PolicyField } from "./field-catalog";
import { joinPath, keyPathAtLine, policyPath, yamlContextAt } from "./yaml-context";

export type FieldOption = {
  label: string;
  apply: string;
  type: "property" | "enum";
  /** Short text beside the label: the field's kind, "required", or the field a value is for. */
  detail: string;
  field: PolicyField;
};

export type Completions = { from: number; options: FieldOption[] };

type Catalog = ReadonlyMap<string, PolicyField>;

type KeyLine = { indent: number; keyColumn: number; key: string | null; startsItem: boolean } | null;

function keyLine(line: string): KeyLine {
  const match = /^(\s*)((?:-\s+)*)(?:([A-Za-z_][\w.-]*)\s*:)?/.exec(line);
  const indent = match?.[1]?.length ?? 0;
  if (line.trim() === "" || line.trimStart().startsWith("#")) return null;
  const markers = match?.[2] ?? "";
  return { indent, keyColumn: indent + markers.length, key: match?.[3] ?? null, startsItem: markers !== "" };
}

type Scan = { lines: readonly string[]; column: number; written: Set<string> };

/** One line of the scan: false once it leaves the mapping (a parent line, or another list item). */
function visit(scan: Scan, text: string, upward: boolean): boolean {
  const line = keyLine(text);
  if (line === null) return true;
  const atColumn = line.keyColumn === scan.column;
  if (line.indent < scan.column && !atColumn) return false;
  if (!upward && line.startsItem && atColumn) return false;
  if (line.key !== null && atColumn) scan.written.add(line.key);
  return !(upward && line.startsItem && atColumn);
}

/** The keys already written in the mapping the cursor's line belongs to (its list item only, in a list). */
function keysWritten(text: string, from: number): Set<string> {
  const lineStart = text.lastIndexOf("\n", from - 1) + 1;
  const scan: Scan = { lines: text.split("\n"), column: from - lineStart, written: new Set() };
  const current = text.slice(0, lineStart).split("\n").length - 1;
  const startsItem = keyLine(scan.lines[current] ?? "")?.startsItem ?? false;
  for (let i = current - 1; i >= 0 && !startsItem && visit(scan, scan.lines[i] ?? "", true); i--);
  for (let i = current + 1; i < scan.lines.length && visit(scan, scan.lines[i] ?? "", false); i++);
  return scan.written;
}

function kindLabel(field: PolicyField): string {
  if (field.required) return `${field.kind}, required`;
  return field.kind;
}

function keyApply(field: PolicyField): string {
  return field.kind === "mapping" || field.kind === "list" ? `${field.key}:` : `${field.key}: `;
}

/** What to offer at `offset`, or null where nothing fits (inside a quoted pattern, say). */
export function completionsAt(text: string, offset: number, catalog: Catalog): Completions | null {
  const context = yamlContextAt(text, offset);
  if (context === null) return null;
  if (context.kind === "key") {
    const written = keysWritten(text, context.from);
    const options = fieldsUnder(catalog, joinPath(policyPath(context.parent)))
      .filter((field) => !written.has(field.key) && field.key.startsWith(context.prefix.slice(0, 1)))
      .map((field) => ({
        label: field.key,
        apply: keyApply(field),
        type: "property" as const,
        detail: kindLabel(field),
        field,
      }));
    return options.length === 0 ? null : { from: context.from, options };
  }
  const field = catalog.get(joinPath(policyPath(context.path)));
  if (field === undefined || field.values.length === 0) return null;
  const options = field.values.map((value) => ({
    label: value,
    apply: value,
    type: "enum" as const,
    detail: field.key,
    field,
  }));
  return { from: context.from, options };
}

/** The field whose key is written at `offset`, and the key's span, for hover docs. */
export function fieldAt(
  text: string,
  offset: number,
  catalog: Catalog,
): { field: PolicyField; from: number; to: number } | null {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  const lineIndex = text.slice(0, lineStart).split("\n").length - 1;
  const path = keyPathAtLine(text, lineIndex);
  const key = path?.at(-1);
  if (path === null || key === undefined) return null;
  const lineEnd = text.indexOf("\n", lineStart);
  const line = text.slice(lineStart, lineEnd === -1 ? text.length : lineEnd);
  const keyColumn = /^(?:\s*-\s+)*\s*/.exec(line)?.[0].length ?? 0;
  const from = lineStart + keyColumn;
  const to = from + key.length;
  if (offset < from || offset > to) return null;
  const field = catalog.get(joinPath(policyPath(path)));
  return field === undefined ? null : { field, from, to };
}
