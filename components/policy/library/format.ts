/** Times in the policy library: "Nov 24, 2026, 10:10 PM" in the reader's locale and zone. */
export function formatWhen(at: Date | string): string {
  return new Date(at).toLocaleString("en-US", { dateStyle: "medium", timeStyle: "short" });
}
