import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");

function runStart(
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(path.join(ROOT, "node_modules/.bin/tsx"), ["scripts/start.ts"], {
      cwd: ROOT,
      env: { ...process.env, REBOUND_DATA_DIR: ".data/never-created", ...env },
    });
    let stderr = "";
    let stdout = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.on("exit", (code) => resolve({ code, stderr, stdout }));
  });
}

describe("npm start refuses bad configuration with one clear line", () => {
  it.each([
    [
      "PORT",
      { PORT: "eighty" },
      /^rebound: invalid configuration: PORT: expected a port number \(got "eighty"\)$/,
    ],
    ["PORT", { PORT: "70000" }, /^rebound: invalid configuration: PORT: expected a port between 1 and 65535/],
    [
      "DATABASE_URL",
      { DATABASE_URL: "mysql://localhost/rebound" },
      /^rebound: invalid configuration: DATABASE_URL: expected a postgres:\/\/ or postgresql:\/\/ URL/,
    ],
  ])("bad %s", async (_name, env, pattern) => {
    const result = await runStart(env);
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(pattern);
    expect(result.stdout).not.toMatch(/PostgreSQL|building/);
  });
});
