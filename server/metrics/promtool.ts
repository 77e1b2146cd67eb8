import { spawn } from "node:child_process";

/** promtool's verdict: `ok` is exit code 0; `output` is stdout and stderr together, in arrival order. */
export type PromtoolResult = { ok: boolean; output: string };

export type PromtoolOptions = {
  /** The promtool executable (Debian package `prometheus` installs /usr/bin/promtool); default from PATH. */
  binary?: string;
  /** Kill promtool after this many milliseconds (default 10 s). */
  timeoutMs?: number;
};

/**
 * Runs `promtool <args>` (stdin: `stdin`, or nothing). A non-zero exit gives `ok: false` with promtool's
 * words. Throws when promtool cannot be started or runs past the timeout, since that is no verdict.
 */
export async function runPromtool(
  args: readonly string[],
  options: PromtoolOptions & { stdin?: string; cwd?: string } = {},
): Promise<PromtoolResult> {
  const { binary = "promtool", timeoutMs = 10_000 } = options;
  const what = `"${binary} ${args.slice(0, 2).join(" ")}"`;
  return new Promise((resolve, reject) => {
    const child = spawn(binary, [...args], {
      stdio: ["pipe", "pipe", "pipe"],
      timeout: timeoutMs,
      cwd: options.cwd,
    });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.on("error", (error) => {
      reject(new Error(`cannot run ${what} (install the Debian package prometheus): ${error.message}`));
    });
    child.on("close", (code, signal) => {
      const output = Buffer.concat(chunks).toString("utf8");
      if (signal !== null) {
        reject(new Error(`${what} was killed by ${signal} (timeout ${timeoutMs} ms): ${output}`));
        return;
      }
      resolve({ ok: code === 0, output });
    });
    // promtool may exit before reading all of stdin (e.g. on an early parse error); the resulting EPIPE says
    // nothing the exit code does not, so it is reported through "close" rather than as a second failure.
    child.stdin.on("error", () => undefined);
    child.stdin.end(options.stdin ?? "");
  });
}

/**
 * Runs `promtool check metrics` on text exposition format read from stdin. A non-zero exit (parse errors,
 * and lint problems such as a missing HELP or a counter without `_total`) gives `ok: false`. Throws when
 * promtool cannot be started or runs past the timeout, since that is no verdict on the text.
 */
export function promtoolCheckMetrics(text: string, options: PromtoolOptions = {}): Promise<PromtoolResult> {
  return runPromtool(["check", "metrics"], { ...options, stdin: text });
}
