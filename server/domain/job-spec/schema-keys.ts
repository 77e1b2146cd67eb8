import { z } from "zod";

type Schema = z.core.$ZodType;

/** Peels optional/default/prefault/nullable/pipe wrappers off a schema. */
function unwrap(schema: Schema): Schema {
  if (
    schema instanceof z.core.$ZodOptional ||
    schema instanceof z.core.$ZodDefault ||
    schema instanceof z.core.$ZodPrefault ||
    schema instanceof z.core.$ZodNullable
  ) {
    return unwrap(schema._zod.def.innerType);
  }
  if (schema instanceof z.core.$ZodPipe) return unwrap(schema._zod.def.in);
  return schema;
}

function child(schema: Schema, segment: PropertyKey): Schema | undefined {
  const inner = unwrap(schema);
  if (inner instanceof z.core.$ZodArray && typeof segment === "number") return inner._zod.def.element;
  if (inner instanceof z.core.$ZodObject && typeof segment === "string") return inner._zod.def.shape[segment];
  return undefined;
}

/** Field names an object schema accepts at `path` (empty when the path does not lead to an object). */
export function knownKeysAt(schema: Schema, path: readonly PropertyKey[]): string[] {
  let current: Schema | undefined = schema;
  for (const segment of path) {
    if (current === undefined) return [];
    current = child(current, segment);
  }
  const inner = current === undefined ? undefined : unwrap(current);
  return inner instanceof z.core.$ZodObject ? Object.keys(inner._zod.def.shape) : [];
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row.push(Math.min((row[j - 1] ?? 0) + 1, (previous[j] ?? 0) + 1, (previous[j - 1] ?? 0) + cost));
    }
    previous = row;
  }
  return previous[b.length] ?? 0;
}

/** The closest known key for a likely typo (case-insensitive; allowed distance grows with length, max 3). */
export function suggestKey(unknownKey: string, knownKeys: readonly string[]): string | undefined {
  const allowed = Math.min(3, Math.max(1, Math.floor(unknownKey.length / 4)));
  let best: { key: string; distance: number } | undefined;
  for (const key of knownKeys) {
    const distance = editDistance(unknownKey.toLowerCase(), key.toLowerCase());
    if (distance <= allowed && (best === undefined || distance < best.distance)) best = { key, distance };
  }
  return best?.key;
}
