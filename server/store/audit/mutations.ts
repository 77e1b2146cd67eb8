import type { Prisma } from "@/generated/prisma/client";

/** Every mutation writes one audit row inside its own transaction (authorised and audited). */
export async function writeAudit(
  tx: Prisma.TransactionClient,
  entry: { userId: string | null; action: string; target: string; details?: Prisma.InputJsonValue },
): Promise<void> {
  await tx.auditLog.create({ data: { ...entry, details: entry.details ?? {} } });
}
