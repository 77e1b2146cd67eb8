import { existsSync } from "node:fs";
import path from "node:path";

/**
 * A worker thread's code, bundled at run time with esbuild from its TypeScript source (the log matcher's
 * and the policy dry-run's workers): the console's own bundle never holds it, and the worker gets plain
 * CommonJS it can eval. `source` is relative to the repository root, where the console runs.
 */
export async function bundleWorkerSource(source: string): Promise<string> {
  const entry = path.join(process.cwd(), source);
  if (!existsSync(entry)) throw new Error(`${entry} not found (the console runs from the repository root)`);
  // Loaded at run time from node_modules, not bundled into the console.
  const esbuild: typeof import("esbuild") = await import(
    /* webpackIgnore: true */ /* turbopackIgnore: true */ "esbuild"
  );
  const built = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    write: false,
    logLevel: "silent",
    absWorkingDir: process.cwd(),
  });
  return built.outputFiles[0]?.text ?? "";
}
