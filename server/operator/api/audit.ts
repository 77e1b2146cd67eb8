import type { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/server/db/client";
import { writeAudit } from "@/server/store/audit/mutations";
import type { Caller } from "./authorize";

/**
 * What a state change through the operator's API records in the AuditLog, whichever client sent it
 * (console, CLI, curl): the action, the job, the caller as authenticated (a Kubernetes username, or
 * `local-token`) and, when the client says whom it acts for (`by`, the console's signed-in user), that too.
 * `by` is the caller's word, kept beside the authenticated identity; `userId` stays empty (the console
 * writes its own row with the user's id). Only changes that were carried out are recorded; refused
 * requests (401/403/4xx) are logged, not audited.
 */
export type AuditNote = {
  action: string;
  target: string;
  by?: string;
  details?: Record<string, unknown>;
};

export async function auditApiChange(db: Db, caller: Caller, note: AuditNote): Promise<void> {
  await db.$transaction((tx) =>
    writeAudit(tx, {
      userId: null,
      action: note.action,
      target: note.target,
      // Through JSON: drops undefined fields, and anything else that is not JSON.
      details: JSON.parse(
        JSON.stringify({ ...note.details, caller: caller.identity, via: caller.via, by: note.by }),
      ) as Prisma.InputJsonObject,
    }),
  );
}
