import { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/server/db/client";
import type { NodeSignalTable } from "@/server/domain/node-health/signal-table.schema";
import { checkNodeSignalText, withCordonAction } from "@/server/domain/node-health/table";
import { AppError } from "@/server/errors";
import { staleWriteError } from "@/server/services/governance/conflict";
import { writeAudit } from "@/server/store/audit/mutations";
import {
  NODE_SIGNAL_TARGET,
  readNodeSignals,
  type StoredNodeSignals,
} from "@/server/store/node-signals/queries";

/**
 * Changes of the node-signal table: under optimistic concurrency (the version the editor read), each in
 * one transaction with one audit row carrying the table before and after. A table that fails its checks
 * is refused (INVALID, naming the row and field) and nothing changes. Who may change it is the router's
 * concern (adminProcedure: cluster admins only).
 */

type Change = {
  version: number;
  actorId: string;
  action: "nodeSignals.update" | "nodeSignals.cordon" | "nodeSignals.reset";
  /** The new rules from the current ones; null: the shipped table. */
  next: (current: StoredNodeSignals) => NodeSignalTable | null;
};

async function writeTable(db: Db, change: Change): Promise<StoredNodeSignals> {
  return db.$transaction(async (tx) => {
    await tx.nodeSignalConfig.upsert({ where: { id: 1 }, create: { id: 1 }, update: {} });
    // Row lock: two admins' writes of the same version are serialised, the second is refused as stale.
    await tx.$queryRaw`SELECT id FROM "NodeSignalConfig" WHERE id = 1 FOR UPDATE`;
    const before = await readNodeSignals(tx);
    if (before.version !== change.version) {
      throw staleWriteError("the node-signal table", {
        version: before.version,
        sent: change.version,
        updatedAt: before.updatedAt,
        updatedBy: before.updatedBy?.name ?? null,
      });
    }
    const rules = change.next(before);
    await tx.nodeSignalConfig.update({
      where: { id: 1 },
      data: {
        rules: rules === null ? Prisma.DbNull : (rules as Prisma.InputJsonValue),
        version: { increment: 1 },
        updatedById: change.actorId,
      },
    });
    const after = await readNodeSignals(tx);
    await writeAudit(tx, {
      userId: change.actorId,
      action: change.action,
      target: NODE_SIGNAL_TARGET,
      details: {
        version: after.version,
        cordonMovesPods: { before: before.cordonMovesPods, after: after.cordonMovesPods },
        before: before.isDefault ? "defaults" : (before.rules as Prisma.InputJsonValue),
        after: after.isDefault ? "defaults" : (after.rules as Prisma.InputJsonValue),
      },
    });
    return after;
  });
}

/** The whole table from the editor's text (YAML or JSON). */
export function updateNodeSignals(db: Db, args: { version: number; text: string; actorId: string }) {
  const checked = checkNodeSignalText(args.text);
  if (!checked.ok) throw new AppError("INVALID", checked.message);
  return writeTable(db, { ...args, action: "nodeSignals.update", next: () => checked.table });
}

/** The cordon toggle: a cordon alone moves running pods (replace-now) or not (avoid, as Kubernetes). */
export function setCordonMovesPods(db: Db, args: { version: number; movesPods: boolean; actorId: string }) {
  return writeTable(db, {
    ...args,
    action: "nodeSignals.cordon",
    next: (current) => withCordonAction(current.rules, args.movesPods),
  });
}

/** Back to the shipped table (which then follows the defaults of the running version). */
export function resetNodeSignals(db: Db, args: { version: number; actorId: string }) {
  return writeTable(db, { ...args, action: "nodeSignals.reset", next: () => null });
}
