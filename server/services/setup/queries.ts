import type { Db } from "@/server/db/client";
import { DEMO_USERS } from "@/server/db/seed";
import type { SetupStatus } from "@/server/services/setup/setup.schema";
import { clusterAdminExists, usableSetupToken } from "./tokens";

/** What the setup page shows for a link: its form (open), a dead link (invalid), or sign in (done). */
export async function setupStatus(db: Db, token: string, now: Date = new Date()): Promise<SetupStatus> {
  if (await clusterAdminExists(db)) return "done";
  return (await usableSetupToken(db, { token, now })) ? "open" : "invalid";
}

/** Whether this database holds the demo users (the sign-in page names them only then). */
export async function demoUsersSeeded(db: Db): Promise<boolean> {
  const emails = DEMO_USERS.map((user) => user.email);
  return (await db.user.count({ where: { email: { in: emails } } })) > 0;
}
