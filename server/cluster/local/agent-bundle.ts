import { randomUUID } from "node:crypto";
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";
import { createLogger } from "@/server/log";

/**
 * Local pods run our agent bundled into one plain ES module instead of through tsx: on this 2-core machine
 * `node bin/rebound-agent.mjs --help` took 0.97–1.43 s and 95–104 MB, the bundle 0.33–0.40 s and 64 MB. That
 * start-up is on the path of every pod the operator creates (a node fault's replacement, a full restart,
 * a scale-up). The bundle is rebuilt once per operator process (~200 ms), so it is never older than the
 * operator's own code; npm packages stay outside it, resolved from the checkout's node_modules as before.
 * Written to a temporary file and renamed, so operators sharing a checkout (tests) never run a half-written
 * one. If bundling fails the pods run bin/rebound-agent.mjs as before, and the operator says why.
 */
export const AGENT_BUNDLE_PATH = "server/agent/dist/rebound-agent.mjs";

const bundles = new Map<string, Promise<string>>();

async function buildAgentBundle(repoRoot: string): Promise<string> {
  const out = path.join(repoRoot, AGENT_BUNDLE_PATH);
  const result = await build({
    entryPoints: [path.join(repoRoot, "server/agent/main.ts")],
    tsconfig: path.join(repoRoot, "tsconfig.json"),
    bundle: true,
    packages: "external",
    platform: "node",
    format: "esm",
    target: "node20",
    write: false,
    logLevel: "silent",
  });
  const [file] = result.outputFiles;
  if (!file) throw new Error("esbuild wrote no output");
  mkdirSync(path.dirname(out), { recursive: true });
  const temporary = `${out}.${process.pid}.${randomUUID()}.tmp`;
  try {
    writeFileSync(temporary, file.contents, { mode: 0o644 });
    renameSync(temporary, out);
  } finally {
    rmSync(temporary, { force: true });
  }
  return out;
}

/** The agent script local pods run: the bundle, built on first use by this process, else the tsx launcher. */
export function localAgentScript(repoRoot: string): Promise<string> {
  let script = bundles.get(repoRoot);
  if (!script) {
    script = buildAgentBundle(repoRoot).catch((error: unknown) => {
      createLogger({ service: "local-pods" }).warn(
        "could not bundle the agent; local pods run it through tsx (slower to start)",
        {
          error: error instanceof Error ? error.message : String(error),
        },
      );
      return path.join(repoRoot, "bin/rebound-agent.mjs");
    });
    bundles.set(repoRoot, script);
  }
  return script;
}
