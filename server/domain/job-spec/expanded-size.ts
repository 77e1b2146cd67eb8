const encoder = new TextEncoder();

/** The bytes `item` adds itself (brackets, braces, colons, commas, a scalar's text); its children go on `stack`. */
function ownSize(item: unknown, stack: unknown[]): number {
  if (Array.isArray(item)) {
    for (const child of item) stack.push(child);
    return Math.max(2, item.length + 1);
  }
  if (item !== null && typeof item === "object") {
    const entries = Object.entries(item);
    for (const [key, child] of entries) stack.push(key, child);
    return Math.max(2, 2 * entries.length + 1);
  }
  return encoder.encode(JSON.stringify(item) ?? "null").length;
}

/**
 * The size in bytes of `value` written out as JSON (how a job is stored and read back), counting a shared
 * object or string once per place it appears, as YAML aliases make it appear. Stops once the total passes
 * `limit` and returns that partial total, so a document that would expand to gigabytes costs about `limit`
 * bytes of work.
 */
export function expandedSize(value: unknown, limit: number): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && total <= limit) total += ownSize(stack.pop(), stack);
  return total;
}
