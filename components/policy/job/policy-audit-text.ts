/**
 * A policy audit entry's details in words: which version a save made, which version an apply or a
 * promotion put on the job, which shadow was attached or detached. Entries of any other shape fall back
 * to their own fields, so a new detail never hides the entry.
 */
const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `{ name, version }` → "demo-llm-policy v3"; anything else → null. */
function label(value: unknown): string | null {
  if (!isRecord(value)) return null;
  const { name, version } = value;
  return typeof name === "string" && typeof version === "number" ? `${name} v${version}` : null;
}

function savedVersion(details: Record<string, unknown>): string {
  const after = isRecord(details.after) ? details.after : {};
  const version = typeof after.version === "number" ? `v${after.version}` : "a version";
  const message = typeof after.message === "string" && after.message !== "" ? `: ${after.message}` : "";
  return `saved ${version}${message}`;
}

function appliedText(fields: Record<string, unknown>): string {
  const after = isRecord(fields.after) ? fields.after.policy : null;
  return `applied ${label(fields.policy) ?? label(after) ?? "a version"} (enforcing)`;
}

function shadowText(fields: Record<string, unknown>): string {
  const after = label(fields.after);
  if (after) return `shadow: ${after}`;
  const before = label(fields.before);
  return before ? `detached the shadow ${before}` : "detached the shadow";
}

export function policyAuditText(action: string, details: unknown): string {
  const fields = isRecord(details) ? details : {};
  switch (action) {
    case "policy.create":
      return `created the policy (${savedVersion(fields).replace("saved ", "")})`;
    case "policy.save":
      return savedVersion(fields);
    case "policy.apply":
      return appliedText(fields);
    case "policy.promote":
      return `promoted the shadow ${label(fields.policy) ?? "version"} to enforcing`;
    case "policy.shadow":
    case "policy.unshadow":
      return shadowText(fields);
    default:
      return JSON.stringify(details ?? null).slice(0, 120);
  }
}
