import { existsSync } from "node:fs";
import path from "node:path";
import { run } from "./processes";

const ROOT = path.resolve(import.meta.dirname, "../..");

/**
 * `prisma generate` needs no schema engine, but Prisma 7 tries to download one unless
 * PRISMA_SCHEMA_ENGINE_BINARY names an existing file; any file will do (it is never run by generate).
 */
export async function generatePrismaClient(options: { force?: boolean } = {}): Promise<boolean> {
  if (!options.force && existsSync(path.join(ROOT, "generated/prisma/client.ts"))) return false;
  await run({
    command: path.join(ROOT, "node_modules/.bin/prisma"),
    args: ["generate"],
    env: { PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath },
  });
  return true;
}
