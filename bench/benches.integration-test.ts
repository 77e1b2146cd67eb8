import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The local benchmarks run from a fresh set-up (their own embedded PostgreSQL, the demo seed, the operator as
 * main.ts runs it) at a small size: what breaks a benchmark's set-up (a job its team's quota refuses, a
 * renamed knob) fails here, not after minutes of a full run. Only that each completes and prints its
 * machine-readable line is checked; the figures are the benchmarks' own business.
 */

const ROOT = path.resolve(import.meta.dirname, "..");

function runBench(script: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", script, ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on("exit", (code) => resolve({ code, output }));
  });
}

/** The benchmark's `BENCH <name> {…}` line, parsed. */
function benchLine(output: string, name: string): Record<string, unknown> {
  const line = output.split("\n").find((text) => text.startsWith(`BENCH ${name} `));
  if (!line) throw new Error(`no BENCH ${name} line; the run ended:\n${output.slice(-3000)}`);
  return JSON.parse(line.slice(`BENCH ${name} `.length)) as Record<string, unknown>;
}

describe("the local benchmarks at a small size", () => {
  it("bench:recovery measures each kind of fault once on a 2 × 2 job", async () => {
    const { code, output } = await runBench("bench/recovery.ts", [
      "--nodes=2",
      "--ranks-per-node=2",
      "--faults=1",
      "--full-restarts=1",
      "--node-faults=1",
      "--stalls=1",
      "--budget-s=120",
    ]);
    const figures = benchLine(output, "recovery");
    expect(code, output.slice(-3000)).toBe(0);
    expect(figures).toMatchObject({
      ranks: 4,
      crash_detect_count: 1,
      hang_detect_over_window_count: 1,
      node_detect_count: 1,
      stalled_detect_count: 1,
      full_restart_count: 1,
    });
  }, 240_000);
});
