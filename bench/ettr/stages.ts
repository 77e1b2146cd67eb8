/**
 * The operator's rebound_operator_restart_stage_seconds by restart type and stage (replacing, stopping,
 * starting), from its /metrics text: scraped before and after each fault, the difference is that fault's
 * stages (bench:k8s's report sums them over every type; here each fault is one restart of one type).
 */
export type StageTotals = Map<string, { seconds: number; count: number }>;

const FAMILY = "rebound_operator_restart_stage_seconds";

function labelsOf(line: string): Record<string, string> {
  const inner = line.slice(line.indexOf("{") + 1, line.indexOf("}"));
  return Object.fromEntries([...inner.matchAll(/(\w+)="([^"]*)"/g)].map((match) => [match[1], match[2]]));
}

/** Which of the histogram's totals a /metrics line is, if either. */
function totalKind(line: string): "seconds" | "count" | null {
  if (line.startsWith(`${FAMILY}_sum{`)) return "seconds";
  if (line.startsWith(`${FAMILY}_count{`)) return "count";
  return null;
}

/** `type/stage` → the histogram's sum (s) and count, from a /metrics text. */
export function parseStageTotals(text: string): StageTotals {
  const totals: StageTotals = new Map();
  for (const line of text.split("\n")) {
    const kind = totalKind(line);
    if (!kind) continue;
    const labels = labelsOf(line);
    const key = `${labels.restart_type ?? "?"}/${labels.stage ?? "?"}`;
    const entry = totals.get(key) ?? { seconds: 0, count: 0 };
    entry[kind] += Number(line.split(" ").at(-1)) || 0;
    totals.set(key, entry);
  }
  return totals;
}

/** What one fault added, ms by `type/stage` (stages it did not pass through left out). */
export function stageDelta(before: StageTotals, after: StageTotals): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const [key, entry] of after) {
    const earlier = before.get(key) ?? { seconds: 0, count: 0 };
    if (entry.count > earlier.count) delta[key] = Math.round((entry.seconds - earlier.seconds) * 1000);
  }
  return delta;
}

export async function scrapeStages(operatorUrl: string): Promise<StageTotals> {
  const response = await fetch(`${operatorUrl}/metrics`).catch(() => null);
  return response?.ok ? parseStageTotals(await response.text()) : new Map();
}
