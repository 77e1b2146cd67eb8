import { type ChildProcess, spawn } from "node:child_process";

/** Runs a command to completion with inherited stdio; rejects with its exit code. */
export function run(opts: { command: string; args: string[]; env?: Record<string, string> }): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(opts.command, opts.args, { stdio: "inherit", env: { ...process.env, ...opts.env } });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${opts.command} ${opts.args.join(" ")} exited with ${signal ?? code}`));
    });
  });
}

/** Polls a URL until it answers 2xx, the child dies, or the deadline passes. */
export async function waitForHttp(opts: {
  url: string;
  child: ChildProcess;
  timeoutMs: number;
}): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  while (Date.now() < deadline) {
    if (opts.child.exitCode !== null || opts.child.signalCode !== null) {
      throw new Error(
        `the process serving ${opts.url} exited (${opts.child.signalCode ?? opts.child.exitCode})`,
      );
    }
    try {
      const response = await fetch(opts.url, { signal: AbortSignal.timeout(2000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${opts.url} did not answer within ${opts.timeoutMs / 1000} s`);
}

/** Sends SIGTERM, then SIGKILL after the grace period; resolves when the child has exited. */
export function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}
