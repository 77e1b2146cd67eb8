import { createReadStream, existsSync } from "node:fs";
import { createInterface } from "node:readline";

/**
 * The apiserver's audit log (JSON lines, level Metadata, stages RequestReceived and ResponseComplete; see
 * cluster.ts): who asked what, when it was received and when it was answered, to the microsecond.
 */
export type AuditEntry = {
  stage: string;
  verb: string;
  user: string;
  resource: string;
  name: string;
  code: number | null;
  receivedAt: number;
  stageAt: number;
};

type RawEvent = {
  stage?: string;
  verb?: string;
  user?: { username?: string };
  objectRef?: { resource?: string; subresource?: string; name?: string };
  responseStatus?: { code?: number };
  requestReceivedTimestamp?: string;
  stageTimestamp?: string;
};

function resourceOf(ref: RawEvent["objectRef"]): string {
  if (!ref?.resource) return "(non-resource)";
  return ref.subresource ? `${ref.resource}/${ref.subresource}` : ref.resource;
}

function toEntry(raw: RawEvent): AuditEntry {
  return {
    stage: raw.stage ?? "",
    verb: raw.verb ?? "",
    user: raw.user?.username ?? "",
    resource: resourceOf(raw.objectRef),
    name: raw.objectRef?.name ?? "",
    code: raw.responseStatus?.code ?? null,
    receivedAt: Date.parse(raw.requestReceivedTimestamp ?? ""),
    stageAt: Date.parse(raw.stageTimestamp ?? ""),
  };
}

export async function readAuditLog(file: string): Promise<AuditEntry[]> {
  if (!existsSync(file)) return [];
  const entries: AuditEntry[] = [];
  for await (const line of createInterface({ input: createReadStream(file) })) {
    if (!line.startsWith("{")) continue;
    try {
      entries.push(toEntry(JSON.parse(line) as RawEvent));
    } catch {
      // a line cut short by the apiserver stopping
    }
  }
  return entries;
}

/** Requests a user sent in [from, to): one RequestReceived entry each. */
export function requestsOf(entries: AuditEntry[], window: { user: string; from: number; to: number }) {
  const requests = entries.filter(
    (entry) =>
      entry.stage === "RequestReceived" &&
      entry.user === window.user &&
      entry.receivedAt >= window.from &&
      entry.receivedAt < window.to,
  );
  const byKind = new Map<string, number>();
  for (const entry of requests) {
    const kind = `${entry.verb} ${entry.resource}`;
    byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
  }
  const seconds = Math.max(0.001, (window.to - window.from) / 1000);
  return {
    count: requests.length,
    perSecond: requests.length / seconds,
    byKind: [...byKind.entries()].sort((a, b) => b[1] - a[1]),
  };
}

/** The first completed request matching `match` answered at or after `after`. */
export function firstCompleted(
  entries: AuditEntry[],
  match: { user: string; verb: string; resource: string; name: string; after: number },
): AuditEntry | undefined {
  let first: AuditEntry | undefined;
  for (const entry of entries.filter(
    (entry) =>
      entry.stage === "ResponseComplete" &&
      entry.user === match.user &&
      entry.verb === match.verb &&
      entry.resource === match.resource &&
      entry.name === match.name &&
      entry.stageAt >= match.after,
  )) {
    if (!first || entry.stageAt < first.stageAt) first = entry;
  }
  return first;
}
