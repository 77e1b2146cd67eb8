import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Context } from "@/server/api/context";
import { createCaller } from "@/server/api/root";
import { createDb, type Db } from "@/server/db/client";
import { createLogger } from "@/server/log";
import { localTokenAuth } from "@/server/operator/api/authorize";
import { handleRequest } from "@/server/operator/api/routes";
import { type SessionUser, signIn } from "@/server/services/auth/sessions";
import { createOperatorSource } from "@/server/services/jobs/gateway/operator-gateway";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";
import { createSeededTestDatabase } from "@/test/database";
import { type LocalOperator, startLocalOperator } from "./local-operator";

/**
 * The console's server side on a real stack, for integration tests: a fresh migrated and seeded database,
 * a real local operator behind its real HTTP API (with a token), and the console's gateway to it. Signed-in
 * demo users are had as session users or as tRPC callers.
 */
export type ConsoleStack = {
  db: Db;
  operator: LocalOperator;
  source: ClusterSource;
  /** A demo user (password rebound-demo), signed in. */
  user(email: string): Promise<SessionUser>;
  /** A tRPC caller for a signed-in demo user, with its session token; `cluster` replaces the gateway. */
  callerFor(
    email: string,
    cluster?: () => ClusterSource,
  ): Promise<{ caller: ReturnType<typeof createCaller>; token: string }>;
  stop(): Promise<void>;
};

const TOKEN = "console-stack-test-token";

async function signedIn(db: Db, email: string) {
  const result = await signIn(db, { email, password: "rebound-demo" });
  if (!result.ok) throw new Error(result.reason);
  return result;
}

export async function startConsoleStack(opts: {
  prefix: string;
  nodes: number;
  gpusPerNode: number;
}): Promise<ConsoleStack> {
  const database = await createSeededTestDatabase(opts.prefix);
  const db = createDb(database.url);
  const operator = await startLocalOperator({
    databaseUrl: database.url,
    nodes: opts.nodes,
    gpusPerNode: opts.gpusPerNode,
  });
  const auth = localTokenAuth({ token: TOKEN, tokenFile: "(test)" });
  const server: Server = createServer(
    (req, res) => void handleRequest({ req, res, deps: operator.deps, healthy: () => true, auth }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const source = createOperatorSource({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    mode: "local",
    token: () => TOKEN,
  });
  return {
    db,
    operator,
    source,
    user: async (email) => (await signedIn(db, email)).user,
    async callerFor(email, cluster = () => source) {
      const result = await signedIn(db, email);
      const ctx: Context = {
        db,
        user: result.user,
        sessionToken: result.token,
        share: null,
        log: createLogger({ test: opts.prefix }),
        setCookie: () => undefined,
        cluster: async () => cluster(),
        clientAddress: "127.0.0.1",
        secure: false,
      };
      return { caller: createCaller(ctx), token: result.token };
    },
    async stop() {
      await new Promise((resolve) => server.close(resolve));
      await operator.stop();
      await db.$disconnect();
      await database.drop();
    },
  };
}
