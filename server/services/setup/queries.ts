import type { SetupStatus } from "@/server/api/routers/setup/setup.schema";
import type { Db } from "@/server/db/client";
import { clusterAdminExists, usableSetupToken } from "./tokens";

/** What the setup page shows for a link: its form (open), a dead link (invalid), or sign in (done). */
export async function setupStatus(db: Db, token: string, now: Date = new Date()): Promise<SetupStatus> {
  if (await clusterAdminExists(db)) return "done";
  return (await usableSetupToken(db, { token, now })) ? "open" : "invalid";
}
