import type {
  FaultCompletion,
  NewRestartEvent,
  RestartEventStore,
} from "@/server/store/restart-events/store";

/**
 * The restart timeline in memory, with the Postgres store's semantics (insert by id unless present; a
 * completion applies only to a pending row), counting the writes that changed something.
 */
export type FakeRow = NewRestartEvent & {
  outcome: "pending" | "recovered" | "failed";
  recoveredAt: Date | null;
  /** Set by a completion: the crash-loop back-off's wait (FaultCompletion.waitMs). */
  waitMs?: number;
  /** Completions that changed this row (a correct operator makes at most one). */
  completions: number;
};

export type FakeRestartEvents = RestartEventStore & { rows(): FakeRow[] };

export function createFakeRestartEvents(): FakeRestartEvents {
  const rows = new Map<string, FakeRow>();
  return {
    async record(fault: NewRestartEvent) {
      if (rows.has(fault.id)) return false;
      const outcome = fault.action === "FAIL" ? "failed" : "pending";
      rows.set(fault.id, { ...structuredClone(fault), outcome, recoveredAt: null, completions: 0 });
      return true;
    },
    async complete(id: string, result: FaultCompletion) {
      const row = rows.get(id);
      if (row?.outcome !== "pending") return false;
      Object.assign(row, result, { completions: row.completions + 1 });
      return true;
    },
    rows: () => [...rows.values()].map((row) => structuredClone(row)),
  };
}
