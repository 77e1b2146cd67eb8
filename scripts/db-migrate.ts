// `npm run db:migrate`: applies prisma/migrations to DATABASE_URL, or to the embedded database under
// REBOUND_DATA_DIR (started for the purpose and stopped again). Seeds nothing.
import path from "node:path";
import { generatePrismaClient } from "./lib/prisma-generate";

const ROOT = path.resolve(import.meta.dirname, "..");

async function main() {
  const { env } = await import("@/env");
  await generatePrismaClient();
  const { prepareDatabase } = await import("./lib/database");
  const database = await prepareDatabase({
    databaseUrl: env.DATABASE_URL,
    dataDir: path.resolve(ROOT, env.REBOUND_DATA_DIR),
    seed: false,
    log: (line) => console.log(`[rebound] ${line}`),
  });
  await database.embedded?.stop();
}

main().catch((error: unknown) => {
  console.error(`rebound: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
