import { existsSync } from "node:fs";
import path from "node:path";

/**
 * A worker thread's code, bundled at run time with esbuild from its TypeScript source (the console's log
 * matcher and policy dry-run, the operator's presence and shadow threads): the process's own bundle never
 * holds it, and the worker gets plain CommonJS it can eval. `source` is relative to the repository root,
 * where both processes run.
 */
export async function bundleWorkerSource(source: string): Promise<string> {
  const entry = path.join(process.cwd(), source);
  if (!existsSync(entry)) throw new Error(`${entry} not found (run from the repository root)`);
  // Loaded at run time from node_modules, not bundled into the process.
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
