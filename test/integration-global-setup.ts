import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { buildDemoTrainer } from "@/scripts/lib/demo-trainer-build";
import { generatePrismaClient } from "@/scripts/lib/prisma-generate";
import { type EmbeddedDatabase, startEmbeddedPostgres } from "@/server/db/embedded";

/**
 * Integration tests run against a real PostgreSQL: TEST_DATABASE_URL when set (e.g. docker compose's),
 * else a throw-away embedded server in a temp dir. Each test file creates its own database from it. Used by the
 * `integration` and `kubernetes` projects; only the latter builds Go (test/kube-build-global-setup.ts).
 */
let embedded: EmbeddedDatabase | undefined;
let dataDir: string | undefined;

declare module "vitest" {
  export interface ProvidedContext {
    postgresAdminUrl: string;
  }
}

export async function setup(project: TestProject) {
  await generatePrismaClient();
  await buildDemoTrainer();
  const given = process.env.TEST_DATABASE_URL;
  if (given) {
    project.provide("postgresAdminUrl", given);
    return;
  }
  dataDir = await mkdtemp(path.join(tmpdir(), "rebound-it-"));
  embedded = await startEmbeddedPostgres({ dataDir });
  project.provide("postgresAdminUrl", embedded.url);
}

export async function teardown() {
  await embedded?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}
