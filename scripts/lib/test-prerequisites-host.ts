import { spawn } from "node:child_process";
import { accessSync, constants, existsSync } from "node:fs";
import path from "node:path";
import { fetchGoToolchain, toolchainVersion } from "./go-toolchain";
import type { CommandResult, Host } from "./test-prerequisites";

const OUTPUT_LIMIT = 64 * 1024;

function which(command: string): boolean {
  return (process.env.PATH ?? "").split(path.delimiter).some((dir) => {
    try {
      accessSync(path.join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

function run(command: string, args: string[]): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    let output = "";
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-OUTPUT_LIMIT);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", (error) => resolve({ code: 127, output: error.message }));
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

/** The build cache the fetched Go toolchains live in (beside .data/kube, which they build). */
const TOOLCHAINS = path.resolve(import.meta.dirname, "../../.data/toolchains");

/** This machine, for ensurePrerequisites. */
export function localHost(): Host {
  return {
    which,
    exists: existsSync,
    isRoot: process.getuid?.() === 0,
    run,
    chromiumPath: process.env.PLAYWRIGHT_CHROMIUM_PATH || undefined,
    fetchGo: () =>
      fetchGoToolchain({
        cacheDir: TOOLCHAINS,
        goproxy: process.env.GOPROXY,
        version: toolchainVersion(process.platform, process.arch),
      }),
    addToPath: (dir) => {
      process.env.PATH = [dir, process.env.PATH].filter(Boolean).join(path.delimiter);
    },
  };
}
