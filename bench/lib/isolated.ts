import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * Runs a benchmark's main module in a child process of its own session, so that a Ctrl-C cannot kill it
 * half-way through its clean-up: the terminal's signal reaches only this process, which closes the IPC
 * channel; the child then stops what it started, removes its temp dirs and exits. The child does the same
 * if this process dies, since the channel closes with it.
 */
export function runIsolated(main: URL): void {
  const child = spawn(
    process.execPath,
    [
      "--import",
      import.meta.resolve("tsx"),
      // Modules that import Next's `server-only` marker load outside Next too (server-only-hook.mjs).
      "--import",
      import.meta.resolve("./register-server-only.mjs"),
      fileURLToPath(main),
      ...process.argv.slice(2),
    ],
    { stdio: ["ignore", "inherit", "inherit", "ipc"], detached: true },
  );
  let interrupted = false;
  const interrupt = () => {
    interrupted = true;
    if (child.connected) child.disconnect();
  };
  process.on("SIGINT", interrupt);
  process.on("SIGTERM", interrupt);
  child.on("exit", (code, signal) => process.exit(interrupted ? 130 : (code ?? (signal ? 1 : 0))));
}

/** A benchmark child's ending: exit 0 when `main` finishes, else its error's stack through `log` and exit 1. */
export function exitWhenDone(main: Promise<void>, log: (line: string) => void): void {
  main.then(
    () => process.exit(0),
    (error: unknown) => {
      log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      process.exit(1);
    },
  );
}
