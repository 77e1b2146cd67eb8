import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * Where the CLI finds the operator: --operator URL, else REBOUND_OPERATOR_URL, else the address `npm start`
 * wrote to <data dir>/operator.json, else http://127.0.0.1:8081.
 */
export function operatorUrl(opts: { flag: string | undefined; env: NodeJS.ProcessEnv; cwd: string }): string {
  if (opts.flag) return opts.flag.replace(/\/$/, "");
  if (opts.env.REBOUND_OPERATOR_URL) return opts.env.REBOUND_OPERATOR_URL.replace(/\/$/, "");
  const file = path.resolve(opts.cwd, opts.env.REBOUND_DATA_DIR ?? ".data", "operator.json");
  if (existsSync(file)) {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as { url?: unknown };
    if (typeof parsed.url === "string") return parsed.url;
  }
  return "http://127.0.0.1:8081";
}
