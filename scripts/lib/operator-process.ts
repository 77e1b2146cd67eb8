import { type ChildProcess, spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { waitForHttp } from "./processes";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** Starts the operator (local back end) and records its URL for the `rebound` CLI. */
export async function startOperator(opts: {
  databaseUrl: string;
  port: number;
  dataDir: string;
}): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    path.join(ROOT, "node_modules/.bin/tsx"),
    [path.join(ROOT, "server/operator/main.ts")],
    {
      stdio: ["ignore", "inherit", "inherit"],
      env: {
        ...process.env,
        DATABASE_URL: opts.databaseUrl,
        OPERATOR_PORT: String(opts.port),
        OPERATOR_HOST: "127.0.0.1",
        REBOUND_DATA_DIR: opts.dataDir,
        REBOUND_CLUSTER: "local",
      },
    },
  );
  const url = `http://127.0.0.1:${opts.port}`;
  await waitForHttp({ url: `${url}/healthz`, child, timeoutMs: 60_000 });
  await writeFile(path.join(opts.dataDir, "operator.json"), JSON.stringify({ url }));
  return { child, url };
}
