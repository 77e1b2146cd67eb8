import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/**
 * The demo trainer runs as one plain Node.js process per rank. It is bundled from
 * examples/trainer/demo-trainer.ts into examples/trainer/dist/demo-trainer.mjs (git-ignored), so a worker
 * does not load a TypeScript loader at every start: 64 workers under `--import tsx` hold ~75 MB each and
 * take ~210 ms to tear down on 2 cores; bundled, ~44 MB and ~80 ms (measured before choosing this).
 * Bundling takes a few milliseconds, so it is simply redone by everything that runs the demo job.
 */
const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const DEMO_TRAINER_SOURCE = path.join(REPO_ROOT, "examples/trainer/demo-trainer.ts");
export const DEMO_TRAINER_BUNDLE = path.join(REPO_ROOT, "examples/trainer/dist/demo-trainer.mjs");

export async function buildDemoTrainer(): Promise<string> {
  await build({
    entryPoints: [DEMO_TRAINER_SOURCE],
    outfile: DEMO_TRAINER_BUNDLE,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "error",
  });
  return DEMO_TRAINER_BUNDLE;
}
