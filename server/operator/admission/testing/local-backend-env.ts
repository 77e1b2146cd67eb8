import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createLocalBackend, type LocalBackend } from "@/server/cluster/local/backend";
import { createDb, type Db } from "@/server/db/client";
import { createSeededTestDatabase } from "@/test/database";

const ROOT = path.resolve(import.meta.dirname, "../../../..");

/** A seeded test database and the real local back end on it, for the admission's integration tests. */
export type LocalBackendEnv = { db: Db; backend: LocalBackend; close(): Promise<void> };

export async function openLocalBackendEnv(opts: {
  /** The test database's name (and the data dir's prefix). */
  name: string;
  nodeCount: number;
  gpusPerNode: number;
}): Promise<LocalBackendEnv> {
  const database = await createSeededTestDatabase(opts.name);
  const db = createDb(database.url);
  const dataDir = await mkdtemp(path.join(tmpdir(), `rebound-${opts.name}-`));
  const backend = await createLocalBackend({
    db,
    dataDir,
    repoRoot: ROOT,
    nodeCount: opts.nodeCount,
    gpusPerNode: opts.gpusPerNode,
    nodeRebootMs: 0,
  });
  return {
    db,
    backend,
    async close() {
      await backend.stop();
      await db.$disconnect();
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
