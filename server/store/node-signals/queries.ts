import type { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/server/db/client";
import { DEFAULT_NODE_SIGNALS } from "@/server/domain/node-health/default-signals";
import type { NodeSignalTable } from "@/server/domain/node-health/signal-table.schema";
import { checkNodeSignalTable, cordonMovesPods } from "@/server/domain/node-health/table";
import { readAudit } from "@/server/store/audit/queries";

/**
 * The node-signal table as stored in Postgres (one NodeSignalConfig row, id 1): no row, or a row without
 * rules (after a reset), is the shipped table. Read by the console and, every few seconds, by the operator.
 */

/** The audit actions of the node-signal table; their target is `nodeSignals`. */
export const NODE_SIGNAL_ACTIONS = ["nodeSignals.update", "nodeSignals.cordon", "nodeSignals.reset"];
export const NODE_SIGNAL_TARGET = "nodeSignals";

export type StoredNodeSignals = {
  version: number;
  rules: NodeSignalTable;
  /** The shipped table (never changed, or reset). */
  isDefault: boolean;
  cordonMovesPods: boolean;
  /** Why the stored rules are not in force (they no longer pass the checks); null when they are. */
  problem: string | null;
  updatedAt: Date | null;
  updatedBy: { id: string; name: string } | null;
};

/**
 * Stored rules as a table. They were checked when written; rules that no longer pass (a later version
 * checks more) read as the shipped table with the problem named, so the console shows it and a cluster
 * admin can save or reset, while the operator keeps the last table it read (loadNodeSignalTable throws).
 */
function storedTable(rules: Prisma.JsonValue | null): { table: NodeSignalTable; problem: string | null } {
  if (rules === null) return { table: DEFAULT_NODE_SIGNALS, problem: null };
  const checked = checkNodeSignalTable(rules);
  if (checked.ok) return { table: checked.table, problem: null };
  return {
    table: DEFAULT_NODE_SIGNALS,
    problem: `the stored node-signal table no longer passes its checks: ${checked.message}`,
  };
}

export async function readNodeSignals(db: Prisma.TransactionClient | Db): Promise<StoredNodeSignals> {
  const row = await db.nodeSignalConfig.findUnique({
    where: { id: 1 },
    select: {
      rules: true,
      version: true,
      updatedAt: true,
      updatedBy: { select: { id: true, name: true } },
    },
  });
  const { table: rules, problem } = storedTable(row?.rules ?? null);
  return {
    version: row?.version ?? 1,
    rules,
    problem,
    isDefault: (row?.rules ?? null) === null,
    cordonMovesPods: cordonMovesPods(rules),
    updatedAt: row?.updatedAt ?? null,
    updatedBy: row?.updatedBy ?? null,
  };
}

/** The table the operator judges nodes by (before a ConfigMap's rows, on Kubernetes). */
export async function loadNodeSignalTable(db: Db): Promise<{ version: number; table: NodeSignalTable }> {
  const stored = await readNodeSignals(db);
  if (stored.problem) throw new Error(stored.problem);
  return { version: stored.version, table: stored.rules };
}

/** The table's latest changes, newest first, with who made each. */
export function nodeSignalHistory(db: Db, limit = 10) {
  return readAudit(db, { action: { in: NODE_SIGNAL_ACTIONS }, target: NODE_SIGNAL_TARGET }, limit);
}
