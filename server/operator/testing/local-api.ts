import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createLocalBackend, type LocalBackend } from "@/server/cluster/local/backend";
import { ensureOperatorToken, operatorTokenPath } from "@/server/cluster/local-token";
import { createDb, type Db } from "@/server/db/client";
import { createLogger } from "@/server/log";
import { localTokenAuth } from "@/server/operator/api/authorize";
import { handleRequest } from "@/server/operator/api/routes";
import { createOperatorDeps } from "@/server/operator/wiring";
import { createSeededTestDatabase } from "@/test/database";

const ROOT = path.resolve(import.meta.dirname, "../../..");

/** The operator's HTTP API over a real local back end and a seeded test database; no controller runs. */
export type LocalApi = {
  db: Db;
  backend: LocalBackend;
  /** http://127.0.0.1:<port> */
  base: string;
  /** The local operator token every call must carry. */
  token: string;
  dataDir: string;
  stop(): Promise<void>;
};

export async function startLocalApi(opts: { name: string; nodeCount: number }): Promise<LocalApi> {
  const database = await createSeededTestDatabase(`it_${opts.name.replaceAll("-", "_")}`);
  const db = createDb(database.url);
  const dataDir = await mkdtemp(path.join(tmpdir(), `rebound-${opts.name}-`));
  const backend = await createLocalBackend({
    db,
    dataDir,
    repoRoot: ROOT,
    nodeCount: opts.nodeCount,
    gpusPerNode: 8,
    nodeRebootMs: 0,
  });
  const deps = createOperatorDeps({ backend, db, log: createLogger({ test: opts.name }) });
  const token = ensureOperatorToken(dataDir);
  const auth = localTokenAuth({ token, tokenFile: operatorTokenPath(dataDir) });
  const server = createServer(
    (req, res) => void handleRequest({ req, res, deps, auth, healthy: () => true }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    db,
    backend,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token,
    dataDir,
    async stop() {
      server.close();
      await backend.stop();
      await db.$disconnect();
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
