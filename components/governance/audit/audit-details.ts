/**
 * An audit entry's details in one line: for `{ before, after }` objects the fields that changed
 * ("borrowLimitPercent 50 → 80; resources changed"), for single values "user: viewer → engineer",
 * otherwise the details' own fields.
 */
const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const short = (value: unknown): string => {
  if (value === null || value === undefined) return "—";
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
    return String(value);
  const json = JSON.stringify(value);
  return json.length > 60 ? `${json.slice(0, 57)}…` : json;
};

const SKIP = new Set(["version", "updatedAt", "updatedBy", "updatedById"]);

function changes(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((key) => !SKIP.has(key));
  return keys.flatMap((key) => {
    const a = before[key];
    const b = after[key];
    if (JSON.stringify(a) === JSON.stringify(b)) return [];
    if (typeof a === "object" || typeof b === "object") return [`${key} changed`];
    return [`${key} ${short(a)} → ${short(b)}`];
  });
}

export function describeDetails(details: unknown): string {
  if (!isRecord(details)) return short(details);
  const { before, after, user } = details;
  if (isRecord(before) && isRecord(after)) {
    const list = changes(before, after);
    return list.length > 0 ? list.join("; ") : "no field changed";
  }
  if ("before" in details && "after" in details) {
    // A single value changed, e.g. a member's role: { user, before: "viewer", after: "engineer" }.
    return `${typeof user === "string" ? `${user}: ` : ""}${short(before)} → ${short(after)}`;
  }
  const entries = Object.entries(details).map(([key, value]) => `${key}: ${short(value)}`);
  return entries.length > 0 ? entries.join("; ") : "—";
}
