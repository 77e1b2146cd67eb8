import { describe, expect, it } from "vitest";
import { logRulesAllRanksFromEnv } from "./env";
import { createRankRecord, rankStatus, recordLine, resetForNewProcess, tickRank } from "./rank-record";

const T0 = Date.parse("2025-01-01T00:00:00Z");

function running(input: { silenceMs: number | null; watched?: boolean }) {
  const record = createRankRecord({ localRank: 1, rank: 1, restarts: 0, monitor: null, ...input });
  record.state = "running";
  return record;
}

describe("suspect ranks (printed, then silent past the shortest recurring window)", () => {
  it("is not suspect before its first line, however long", () => {
    const record = running({ silenceMs: 1000 });
    tickRank(record, T0 + 60_000);
    expect(rankStatus(record)).toMatchObject({ suspect: false, suspect_since: null });
  });

  it("becomes suspect once the window has passed since its last line, dated last line + window", () => {
    const record = running({ silenceMs: 1000 });
    recordLine(record, { line: "step=1", at: T0 });
    tickRank(record, T0 + 1000);
    expect(rankStatus(record).suspect).toBe(false);
    tickRank(record, T0 + 1001);
    tickRank(record, T0 + 5000);
    expect(rankStatus(record)).toMatchObject({
      suspect: true,
      suspect_since: "2025-01-01T00:00:01.000000+00:00",
    });
  });

  it("clears on its next line, and when it is no longer running", () => {
    const record = running({ silenceMs: 1000 });
    recordLine(record, { line: "step=1", at: T0 });
    tickRank(record, T0 + 2000);
    recordLine(record, { line: "step=2", at: T0 + 2100 });
    expect(rankStatus(record).suspect).toBe(false);
    tickRank(record, T0 + 4000);
    expect(rankStatus(record).suspect).toBe(true);
    record.state = "stopped";
    tickRank(record, T0 + 4100);
    expect(rankStatus(record).suspect).toBe(false);
  });

  it("is never suspect without a recurring window", () => {
    const record = running({ silenceMs: null });
    recordLine(record, { line: "step=1", at: T0 });
    tickRank(record, T0 + 3_600_000);
    expect(rankStatus(record).suspect).toBe(false);
  });

  it("reports whether its rules can fault the job", () => {
    expect(rankStatus(running({ silenceMs: null, watched: false })).log_watched).toBe(false);
    expect(rankStatus(running({ silenceMs: null })).log_watched).toBe(true);
  });
});

describe("progress facts (for the console's no progress for N s)", () => {
  it("dates the last progress line only: other output does not count", () => {
    const record = running({ silenceMs: null });
    expect(rankStatus(record)).toMatchObject({ last_progress_at: null, progress_interval_ms: null });
    recordLine(record, { line: "training started", at: T0 });
    expect(rankStatus(record).last_progress_at).toBeNull();
    recordLine(record, { line: "step=1 loss=2.5 throughput=10", at: T0 + 1000 });
    recordLine(record, { line: "saving checkpoint", at: T0 + 1500 });
    expect(rankStatus(record)).toMatchObject({
      last_line_at: "2025-01-01T00:00:01.500000+00:00",
      last_progress_at: "2025-01-01T00:00:01.000000+00:00",
    });
  });

  it("reports the usual interval once a gap past the first is seen, and forgets it for a new process", () => {
    const record = running({ silenceMs: null });
    for (const [step, at] of [0, 5000, 5200, 5400, 5650].entries())
      recordLine(record, { line: `step=${step} loss=2.5`, at: T0 + at });
    expect(rankStatus(record).progress_interval_ms).toBe(200);
    resetForNewProcess(record);
    expect(rankStatus(record)).toMatchObject({ last_progress_at: null, progress_interval_ms: null });
  });
});

describe("REBOUND_LOG_RULES_ALL_RANKS", () => {
  it.each([
    [{}, false],
    [{ REBOUND_LOG_RULES_ALL_RANKS: "" }, false],
    [{ REBOUND_LOG_RULES_ALL_RANKS: "0" }, false],
    [{ REBOUND_LOG_RULES_ALL_RANKS: "false" }, false],
    [{ REBOUND_LOG_RULES_ALL_RANKS: "1" }, true],
    [{ REBOUND_LOG_RULES_ALL_RANKS: "true" }, true],
  ])("%j reads as %s", (env, value) => {
    expect(logRulesAllRanksFromEnv(env)).toEqual({ ok: true, value });
  });

  it("refuses anything else, naming the variable", () => {
    expect(logRulesAllRanksFromEnv({ REBOUND_LOG_RULES_ALL_RANKS: "yes" })).toEqual({
      ok: false,
      error: 'REBOUND_LOG_RULES_ALL_RANKS: expected true, false, 1 or 0, got "yes"',
    });
  });
});
