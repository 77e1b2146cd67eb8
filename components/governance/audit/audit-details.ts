/**
 * An audit entry's details in words. Rows that record `{ before, after }` (every change the console writes,
 * server/store/audit/mutations.ts) read as the values that changed, each with its path:
 * "resources[nvidia.com/gpu on ml.p5.48xlarge].guaranteed 16 → 32". A row with a single changed value reads
 * "viewer@rebound.local: viewer → engineer"; older rows, and events that change nothing (a pairing), read as
 * their own fields.
 */
const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A string's first line, cut at 60 characters, with how many lines it had. */
function shortText(value: string): string {
  const lines = value.split("\n");
  const line = lines[0] ?? "";
  const more = lines.length > 1 ? ` (${lines.length} lines)` : "";
  return line.length > 60 ? `${line.slice(0, 57)}…${more}` : `${line}${more}`;
}

const isPlainList = (value: unknown): value is unknown[] =>
  Array.isArray(value) && value.every((item) => !isRecord(item) && !Array.isArray(item));

function short(value: unknown): string {
  if (value === null || value === undefined || value === "") return "—";
  if (typeof value === "string") return shortText(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (isPlainList(value)) return value.length > 0 ? value.map(short).join(", ") : "none";
  const json = JSON.stringify(value);
  return json.length > 60 ? `${json.slice(0, 57)}…` : json;
}

/** Bookkeeping that changes with every save: not a change anyone made. */
const SKIP = new Set(["version", "updatedAt", "updatedBy", "updatedById", "policyId"]);

/** One value that changed: where, and from what to what (null: it did not exist). */
export type AuditChange = { path: string; before: unknown; after: unknown };

/** What names an element of a list, so a list diff matches elements rather than positions. */
function identityOf(item: unknown): string | null {
  if (!isRecord(item)) return null;
  if (typeof item.resource === "string")
    return typeof item.instanceType === "string" && item.instanceType !== ""
      ? `${item.resource} on ${item.instanceType}`
      : item.resource;
  for (const key of ["name", "id", "email"]) if (typeof item[key] === "string") return item[key] as string;
  return null;
}

const join = (path: string, key: string) => (path === "" ? key : `${path}.${key}`);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function listChanges(path: string, before: unknown[], after: unknown[]): AuditChange[] {
  const ids = [...before, ...after].map(identityOf);
  if (ids.some((id) => id === null)) return [{ path, before, after }];
  const byId = (list: unknown[]) => new Map(list.map((item) => [identityOf(item) as string, item]));
  const was = byId(before);
  const now = byId(after);
  const keys = [...new Set([...was.keys(), ...now.keys()])];
  return keys.flatMap((key) => changesBetween(`${path}[${key}]`, was.get(key) ?? null, now.get(key) ?? null));
}

/** Every leaf that differs between `before` and `after` (records and named lists are walked into). */
export function changesBetween(path: string, before: unknown, after: unknown): AuditChange[] {
  if (same(before, after)) return [];
  if (isRecord(before) && isRecord(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
      (key) => !SKIP.has(key),
    );
    return keys.flatMap((key) => changesBetween(join(path, key), before[key] ?? null, after[key] ?? null));
  }
  if (Array.isArray(before) && Array.isArray(after) && before.some(isRecord) !== after.some(isRecord))
    return [{ path, before, after }];
  if (Array.isArray(before) && Array.isArray(after) && [...before, ...after].some(isRecord))
    return listChanges(path, before, after);
  return [{ path, before, after }];
}

/** A record's fields in words, leaving out the one that names it in the path. */
const fieldsOf = (record: Record<string, unknown>) =>
  Object.entries(record)
    .filter(
      ([key, value]) =>
        !SKIP.has(key) && value !== identityOf(record) && key !== "resource" && key !== "instanceType",
    )
    .map(([key, value]) => `${key} ${short(value)}`)
    .join(", ");

function phrase(change: AuditChange): string {
  const { path, before, after } = change;
  if (before === null && isRecord(after)) return `${path} added (${fieldsOf(after)})`;
  if (after === null && isRecord(before)) return `${path} removed`;
  return `${path === "" ? "" : `${path} `}${short(before)} → ${short(after)}`;
}

/** A created thing (`before` null) is said by its fields, not as a change from nothing. */
function created(after: Record<string, unknown>): string[] {
  const fields = Object.entries(after).filter(([key]) => !SKIP.has(key));
  return [`created: ${fields.map(([key, value]) => `${key} ${short(value)}`).join(", ")}`];
}

/** A row that records `before` and `after`: what changed between them. */
function beforeAfter(details: Record<string, unknown>): string[] {
  const { before, after } = details;
  if (before === null && isRecord(after)) return created(after);
  const walkable = (value: unknown) => isRecord(value) || Array.isArray(value);
  if (walkable(before) && walkable(after)) {
    const list = changesBetween("", before, after).map(phrase);
    return list.length > 0 ? list : ["no field changed"];
  }
  // A single value changed: a member's role { user, before: "viewer", after: "engineer" }, a token's state.
  const subject = [details.user, details.label].find((value) => typeof value === "string");
  return [`${subject === undefined ? "" : `${subject}: `}${short(before)} → ${short(after)}`];
}

/** The details as lines, one per change (or per field of rows that record no before → after). */
export function describeChanges(details: unknown): string[] {
  if (!isRecord(details)) return [short(details)];
  if ("before" in details && "after" in details) return beforeAfter(details);
  const entries = Object.entries(details).map(([key, value]) => `${key}: ${short(value)}`);
  return entries.length > 0 ? entries : ["—"];
}

/** The details in one line ("; " between changes). */
export function describeDetails(details: unknown): string {
  return describeChanges(details).join("; ");
}
