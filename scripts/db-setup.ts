// The console's init step on Kubernetes (deploy/console): migrate, seed per REBOUND_SEED (auto: settings
// only in production), then create the first admin from REBOUND_ADMIN_EMAIL + REBOUND_ADMIN_PASSWORD(_FILE),
// or print a one-time setup link when none is supplied and no cluster admin exists
// (`kubectl -n rebound-system logs deploy/rebound-console -c setup`). The same steps `npm start` runs.
import path from "node:path";
import { generatePrismaClient } from "./lib/prisma-generate";

const ROOT = path.resolve(import.meta.dirname, "..");

async function main() {
  const { env } = await import("@/env");
  const { adminCredentials } = await import("./lib/admin-credentials");
  const admin = await adminCredentials(env);
  await generatePrismaClient();
  const { bootstrapFromEnv, prepareDatabase } = await import("./lib/database");
  const database = await prepareDatabase({
    databaseUrl: env.DATABASE_URL,
    dataDir: path.resolve(ROOT, env.REBOUND_DATA_DIR),
    // No PORT: the console's address is not known here; the link is printed as a path.
    seed: bootstrapFromEnv({ ...env, PORT: undefined }, admin),
    log: (line) => console.log(`[rebound] ${line}`),
  });
  await database.embedded?.stop();
}

main().catch((error: unknown) => {
  console.error(`rebound: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(error instanceof Error && error.name === "InvalidEnvError" ? 2 : 1);
});
