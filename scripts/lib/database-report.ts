import { verify } from "@node-rs/argon2";
import type { Db } from "@/server/db/client";
import { DEMO_PASSWORD, DEMO_USERS, seedIfEmpty, seedSettingsIfEmpty } from "@/server/db/seed";
import type { FirstAdminOutcome } from "@/server/services/setup/bootstrap";
import { SETUP_TOKEN_TTL_MS } from "@/server/services/setup/tokens";

type Log = (line: string) => void;

const DEMO_EMAILS = DEMO_USERS.map((user) => user.email).join(", ");

function banner(log: Log, lines: string[]): void {
  const rule = "!".repeat(100);
  log(rule);
  for (const line of lines) log(`!! ${line}`);
  log(rule);
}

/** The one-machine demo: teams and demo users into an empty database, and a line saying they exist. */
export async function seedDemo(db: Db, opts: { production: boolean; log: Log }): Promise<void> {
  const seeded = await seedIfEmpty(db);
  opts.log(
    `demo users ${seeded ? "seeded" : "kept"}: ${DEMO_EMAILS} (admin@ is cluster admin), password ${DEMO_PASSWORD} — for this machine only; see docs/security.md for production`,
  );
  if (!opts.production) return;
  banner(opts.log, [
    "REBOUND_SEED=demo with NODE_ENV=production: the demo users exist with the published password",
    `${DEMO_PASSWORD}, and admin@rebound.local is CLUSTER ADMIN. Anyone who reaches this console can sign in`,
    "as them. Unset REBOUND_SEED for a production start (docs/security.md).",
  ]);
}

/** Production: settings only; warns loudly when a demo admin with the demo password is still there. */
export async function seedProduction(db: Db, log: Log): Promise<void> {
  if (await seedSettingsIfEmpty(db))
    log("seeded the settings (priority classes, scheduler); no teams, no users");
  const demoAdmin = await db.user.findUnique({
    where: { email: "admin@rebound.local" },
    select: { passwordHash: true },
  });
  if (demoAdmin && (await verify(demoAdmin.passwordHash, DEMO_PASSWORD))) {
    banner(log, [
      `admin@rebound.local still has the demo password ${DEMO_PASSWORD} (this database was seeded as a demo).`,
      "Anyone who reaches this console can sign in as cluster admin: start on a fresh database for production.",
    ]);
  }
}

/** Prints what became of the first admin: created, already there, or the setup link (this one time). */
export function reportFirstAdmin(
  outcome: FirstAdminOutcome,
  opts: { consoleUrl?: string | undefined; log: Log },
) {
  switch (outcome.kind) {
    case "supplied":
      opts.log(
        outcome.created
          ? `created the first cluster admin ${outcome.email} (REBOUND_ADMIN_PASSWORD)`
          : `${outcome.email} exists: REBOUND_ADMIN_PASSWORD is not applied to an existing user`,
      );
      return;
    case "link": {
      const hours = SETUP_TOKEN_TTL_MS / 3_600_000;
      banner(opts.log, [
        `No cluster admin yet. Create one here (single use, valid ${hours} h, printed this once):`,
        `    ${opts.consoleUrl ?? "<console address>"}/setup?token=${outcome.token}`,
        "A restart prints a new link and voids this one. Or set REBOUND_ADMIN_EMAIL + REBOUND_ADMIN_PASSWORD.",
      ]);
      return;
    }
    case "admin-exists":
      return;
    default:
      outcome satisfies never;
  }
}
