import type { Db } from "@/server/db/client";
import type { TeamCapacity } from "@/server/domain/governance/types";
import type { CapacityHistoryView, CapacityPoint } from "@/server/services/governance/governance.schema";

/**
 * Capacity over time per team (guaranteed, used, borrowed, lent): the console's sampler (sampler.ts) looks at
 * the cluster every SAMPLE_INTERVAL_MS and writes a row per team, flavor and resource only when the values
 * changed since its last row, or HEARTBEAT_MS passed; rows older than RETENTION_MS are deleted as it writes.
 * A chart reads the change points as steps: each value holds until the next row.
 */
export const SAMPLE_INTERVAL_MS = 30_000;
export const HEARTBEAT_MS = 10 * 60_000;
export const RETENTION_MS = 7 * 24 * 3600_000;
/** The most points one answer carries (a 7-day range at 30 s would be 20,160). */
export const MAX_POINTS = 720;

export const RANGE_MS = { "1h": 3600_000, "6h": 6 * 3600_000, "24h": 24 * 3600_000, "7d": 7 * 24 * 3600_000 };

type Values = { guaranteed: number; used: number; borrowed: number; lent: number };
/** What the sampler last wrote per series (`team|flavor|resource`), to write only changes. */
export type SamplerMemory = Map<string, { values: Values; at: number }>;

const seriesKey = (row: TeamCapacity) => `${row.team}|${row.flavor}|${row.resource}`;
const same = (a: Values, b: Values) =>
  a.guaranteed === b.guaranteed && a.used === b.used && a.borrowed === b.borrowed && a.lent === b.lent;

/** Writes the rows that changed (or are due a heartbeat) and drops expired ones; returns how many it wrote. */
export async function recordCapacity(
  db: Db,
  args: { capacities: readonly TeamCapacity[]; now: number; memory: SamplerMemory },
): Promise<number> {
  const { capacities, now, memory } = args;
  const due = capacities.filter((row) => {
    const last = memory.get(seriesKey(row));
    return !last || !same(last.values, row) || now - last.at >= HEARTBEAT_MS;
  });
  if (due.length > 0) {
    await db.capacitySample.createMany({
      data: due.map((row) => ({
        team: row.team,
        flavor: row.flavor,
        resource: row.resource,
        at: new Date(now),
        guaranteed: row.guaranteed,
        used: row.used,
        borrowed: row.borrowed,
        lent: row.lent,
      })),
    });
  }
  for (const row of due) {
    const { guaranteed, used, borrowed, lent } = row;
    memory.set(seriesKey(row), { values: { guaranteed, used, borrowed, lent }, at: now });
  }
  await db.capacitySample.deleteMany({ where: { at: { lt: new Date(now - RETENTION_MS) } } });
  return due.length;
}

type SampleRow = Values & { flavor: string; at: Date };

/** Sums the flavors' latest values at each change point (each flavor's value holds until its next row). */
export function stepsOf(rows: readonly SampleRow[]): CapacityPoint[] {
  const latest = new Map<string, Values>();
  const points: CapacityPoint[] = [];
  for (const row of rows) {
    latest.set(row.flavor, row);
    const at = row.at.getTime();
    const sum = { at, guaranteed: 0, used: 0, borrowed: 0, lent: 0 };
    for (const values of latest.values()) {
      sum.guaranteed += values.guaranteed;
      sum.used += values.used;
      sum.borrowed += values.borrowed;
      sum.lent += values.lent;
    }
    if (points.at(-1)?.at === at) points.pop();
    points.push(sum);
  }
  return points;
}

/** Keeps at most `max` points: the last of each equal time bucket (a step holds its value until the next). */
export function thin(
  points: CapacityPoint[],
  window: { from: number; to: number; max: number },
): CapacityPoint[] {
  if (points.length <= window.max) return points;
  const bucket = (window.to - window.from) / window.max;
  const kept = new Map<number, CapacityPoint>();
  for (const point of points) kept.set(Math.floor((point.at - window.from) / bucket), point);
  return [...kept.values()];
}

/**
 * The team's capacity of one resource over the range, summed over flavors: the value at the range's start
 * (the last row before it, if any) and each change after, ending with a point at `now`.
 */
export async function capacityHistory(
  db: Db,
  query: { team: string; resource: string; range: keyof typeof RANGE_MS; now: number },
): Promise<CapacityHistoryView> {
  const from = query.now - RANGE_MS[query.range];
  const where = { team: query.team, resource: query.resource };
  const select = { flavor: true, at: true, guaranteed: true, used: true, borrowed: true, lent: true };
  const flavors = await db.capacitySample.groupBy({ by: ["flavor"], where });
  const [before, within] = await Promise.all([
    Promise.all(
      flavors.map(({ flavor }) =>
        db.capacitySample.findFirst({
          where: { ...where, flavor, at: { lt: new Date(from) } },
          orderBy: { at: "desc" },
          select,
        }),
      ),
    ),
    db.capacitySample.findMany({
      where: { ...where, at: { gte: new Date(from), lte: new Date(query.now) } },
      orderBy: { at: "asc" },
      select,
    }),
  ]);
  const start = before.flatMap((row) => (row ? [{ ...row, at: new Date(from) }] : []));
  const points = thin(stepsOf([...start, ...within]), { from, to: query.now, max: MAX_POINTS - 1 });
  const last = points.at(-1);
  if (last && last.at < query.now) points.push({ ...last, at: query.now });
  return { team: query.team, resource: query.resource, intervalMs: SAMPLE_INTERVAL_MS, points };
}
