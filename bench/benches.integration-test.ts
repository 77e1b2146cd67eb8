import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The local benchmarks run from a fresh set-up (their own embedded PostgreSQL, the demo seed, the operator as
 * main.ts runs it) at a small size: what breaks a benchmark's set-up (a job its team's quota refuses, a
 * renamed knob) fails here, not after minutes of a full run. Only that each completes, prints its
 * machine-readable line and ran what it was asked (its size, its faults, its cycles) is checked; the
 * figures are the benchmarks' own business.
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

  it("bench:goodput meets a crash and a hang with peer recovery on a 2 × 2 job", async () => {
    const { code, output } = await runBench("bench/goodput.ts", [
      "--modes=peer",
      "--nodes=2",
      "--ranks-per-node=2",
      "--seconds=20",
      "--interval-s=10",
    ]);
    const figures = benchLine(output, "goodput");
    expect(code, output.slice(-3000)).toBe(0);
    // A mode that fails still prints the line (and exits 0), saying so as failed_<mode>.
    expect(figures.failed_peer_recovery, output.slice(-3000)).toBeUndefined();
    expect(figures).toMatchObject({ ranks: 4, faults_peer_recovery: 2, faults_open_peer_recovery: 0 });
  }, 180_000);

  it("bench:elastic grows into the freed GPUs and shrinks back once on 4 nodes × 1 GPU", async () => {
    const { code, output } = await runBench("bench/elastic.ts", [
      "--nodes=4",
      "--gpus-per-node=1",
      "--other-pods=2",
      "--cycles=1",
      "--other-seconds=5",
      "--hold-seconds=1",
      "--graceful-s=5",
    ]);
    const figures = benchLine(output, "elastic");
    expect(code, output.slice(-3000)).toBe(0);
    expect(figures).toMatchObject({ cycles: 1, gpus: 4, elastic_pods_beside: 2, elastic_pods_max: 4 });
    expect(figures.capacity_to_scaled_up_ms).toBeGreaterThan(0);
  }, 180_000);

  it("bench:governance times 20 admissions with 40 jobs queued over 4 teams", async () => {
    const { code, output } = await runBench("bench/governance.ts", [
      "--jobs=40",
      "--teams=4",
      "--holders=4",
      "--reps=20",
    ]);
    const figures = benchLine(output, "governance");
    expect(code, output.slice(-3000)).toBe(0);
    expect(figures).toMatchObject({ jobs: 40, teams: 4, repetitions: 20 });
    expect(figures.pending_seen).toBeGreaterThan(0);
  }, 180_000);

  it("bench:reconcile times each scenario both ways on a 16-pod job", async () => {
    const { code, output } = await runBench("bench/reconcile-scale.ts", [
      "--rounds=10",
      "--pods=16",
      "--ranks-per-pod=2",
    ]);
    const figures = benchLine(output, "reconcile");
    expect(code, output.slice(-3000)).toBe(0);
    const cases = ["quiet", "agent faulted", "node unhealthy"].flatMap((scenario) =>
      ["as shipped", "every view"].map((way) => `16 ${scenario} ${way}`),
    );
    expect(Object.keys(figures).sort()).toEqual(cases.sort());
  }, 60_000);

  // Its parts load the console's services, which import Next's `server-only` marker: outside Next that
  // package does not exist, and the bench failed at start until bench/lib/server-only-hook.mjs.
  it("bench:abuse measures its rules part for a second", async () => {
    const { code, output } = await runBench("bench/abuse.ts", ["--part", "rules", "--seconds", "1"]);
    const figures = benchLine(output, "abuse");
    expect(code, output.slice(-3000)).toBe(0);
    expect(Object.keys(figures)).toContain("rules");
  }, 120_000);
});
