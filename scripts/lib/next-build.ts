import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { run } from "./processes";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SOURCE_DIRS = ["app", "components", "lib", "server", "generated"];
const SOURCE_FILES = ["next.config.ts", "proxy.ts", "env.ts", "package-lock.json", "tsconfig.json"];
const STAMP = path.join(ROOT, ".next/rebound-source-hash");

async function listFiles(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && !/\.test\.tsx?$|\.(integration|k8s)-test\.ts$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

/** A hash of everything the console build reads, so a changed checkout rebuilds and an unchanged one does not. */
export async function sourceHash(): Promise<string> {
  const files = [
    ...(await Promise.all(SOURCE_DIRS.map((dir) => listFiles(path.join(ROOT, dir))))).flat(),
    ...SOURCE_FILES.map((file) => path.join(ROOT, file)).filter((file) => existsSync(file)),
  ];
  const hash = createHash("sha256");
  for (const file of files) {
    hash.update(path.relative(ROOT, file));
    hash.update(await readFile(file));
  }
  return hash.digest("hex");
}

/** Builds the Next app when there is no build or the sources changed since the last one. */
export async function buildConsoleIfNeeded(log: (line: string) => void): Promise<boolean> {
  const wanted = await sourceHash();
  const built = existsSync(path.join(ROOT, ".next/BUILD_ID")) && existsSync(STAMP);
  if (built && (await readFile(STAMP, "utf8")) === wanted) return false;
  log(
    built
      ? "sources changed since the last build: rebuilding the console…"
      : "building the console (first start)…",
  );
  await run({
    command: path.join(ROOT, "node_modules/.bin/next"),
    args: ["build"],
    env: { NEXT_TELEMETRY_DISABLED: "1" },
  });
  await writeFile(STAMP, wanted);
  return true;
}
