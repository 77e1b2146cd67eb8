import { describe, expect, it } from "vitest";
import type { JobPage } from "@/server/domain/jobs/pages";
import { applyPatch, diffPage } from "./patch";
import type { RankView } from "./view-model";

const rank = (n: number, over: Partial<RankView> = {}): RankView => ({
  rank: n,
  localRank: n % 4,
  pod: `job-workers-${Math.floor(n / 4)}`,
  node: "node-0",
  health: "healthy",
  state: "running",
  pid: 100 + n,
  step: 10,
  loss: 2.5,
  throughput: 1500,
  lastLine: "step=10",
  lastLineAt: 1000,
  restarts: 0,
  ruleStates: { JobHang: "HEALTHY" },
  straggler: false,
  ...over,
});

const page = (ranks: RankView[], over: Partial<JobPage> = {}): JobPage => ({
  namespace: "ns",
  name: "job",
  team: "t",
  teamId: "1",
  status: "Running",
  phase: "Running",
  priorityClass: null,
  gpus: 8,
  restartCount: 0,
  reason: null,
  backOffUntil: null,
  ranksHealthy: ranks.length,
  ranksTotal: ranks.length,
  restarts: { plr: 0, podReplacement: 0, jlr: 0 },
  recovering: null,
  createdAt: 0,
  topology: { nodes: [], pods: [], ranks },
  timeline: [],
  totals: { faults: 0, mttrMs: null, downtimeMs: 0, goodput: 1 },
  events: [],
  logRules: [],
  updatedAt: 1,
  resourceVersion: "7",
  appliedPolicy: null,
  shadow: null,
  verdicts: [],
  pendingRestart: false,
  elastic: null,
  scaling: [],
  ...over,
});

describe("job page diffs", () => {
  it("starts with a snapshot, then sends only the ranks and parts that changed", () => {
    const first = page([rank(0), rank(1), rank(2)]);
    expect(diffPage(null, first)).toEqual({ kind: "snapshot", page: first });
    const second = page([rank(0), rank(1, { health: "faulted", state: "crashed" }), rank(2)], {
      status: "Recovering",
      updatedAt: 2,
    });
    const patch = diffPage(first, second);
    expect(patch).toEqual({
      kind: "patch",
      ranks: [{ rank: 1, health: "faulted", state: "crashed" }],
      parts: { status: "Recovering" },
    });
    expect(applyPatch(first, patch ?? { kind: "snapshot", page: first })).toEqual({
      ...second,
      updatedAt: 1,
    });
  });

  it("carries the header's figures: ranks healthy, the reason, the back-off and restarts reach a watching page", () => {
    const first = page([rank(0), rank(1)], { ranksHealthy: 0, status: "Starting" });
    const next = page([rank(0), rank(1)], {
      ranksHealthy: 2,
      status: "BackOff",
      reason: "CrashLoop: 2 restarts in a row",
      backOffUntil: 5_000,
      restarts: { plr: 2, podReplacement: 0, jlr: 0 },
    });
    const patch = diffPage(first, next);
    expect(patch?.kind).toBe("patch");
    const applied = applyPatch(first, patch ?? { kind: "snapshot", page: first });
    expect(applied).toMatchObject({
      ranksHealthy: 2,
      reason: "CrashLoop: 2 restarts in a row",
      backOffUntil: 5_000,
      restarts: { plr: 2 },
    });
  });

  it("carries the policy parts: a new version, pending rules and a shadow verdict reach a watching page", () => {
    const first = page([rank(0)]);
    const verdict = {
      id: "v1",
      at: 5000,
      pod: "job-workers-0",
      rank: 0,
      rule: "hang",
      state: "HANGING",
      reason: "LogHang_hang",
      line: null,
      wouldAction: "restarted rank 0 in place",
      message: "would have restarted rank 0 in place: rule hang HANGING at 00:00:05Z",
      policy: "llm v2",
    };
    const applied = { id: "p1", name: "llm", version: 2 };
    const second = page([rank(0)], {
      resourceVersion: "8",
      appliedPolicy: applied,
      pendingRestart: true,
      shadow: { policy: applied, rules: [], verdicts: [verdict] },
      verdicts: [verdict],
    });
    const patch = diffPage(first, second);
    expect(patch?.kind === "patch" && Object.keys(patch.parts).sort()).toEqual([
      "appliedPolicy",
      "pendingRestart",
      "resourceVersion",
      "shadow",
      "verdicts",
    ]);
    expect(applyPatch(first, patch ?? { kind: "snapshot", page: first })).toEqual(second);
  });

  it("sends nothing when only the observation time moved", () => {
    const first = page([rank(0)]);
    expect(diffPage(first, { ...first, updatedAt: 99 })).toBeNull();
  });

  it("sends a snapshot when the job's size changed", () => {
    const first = page([rank(0)]);
    const grown = page([rank(0), rank(1)]);
    expect(diffPage(first, grown)).toEqual({ kind: "snapshot", page: grown });
  });

  it("keeps a 2,048-rank patch small when one rank changes", () => {
    const ranks = Array.from({ length: 2048 }, (_, n) => rank(n));
    const before = page(ranks);
    const after = page(ranks.map((r) => (r.rank === 777 ? { ...r, step: 11 } : r)));
    const patch = diffPage(before, after);
    expect(patch?.kind === "patch" && patch.ranks.map((r) => r.rank)).toEqual([777]);
    expect(JSON.stringify(patch).length).toBeLessThan(1000);
  });

  it("sends a stepping rank's changed fields only, and 2,048 stepping ranks in under half their size whole", () => {
    const ranks = Array.from({ length: 2048 }, (_, n) => rank(n));
    const before = page(ranks);
    const stepped = ranks.map((r) => ({
      ...r,
      step: 11,
      loss: 2.4,
      lastLine: `step=11 loss=2.4 throughput=1500 samples/s rank=${r.rank}`,
      lastLineAt: 2000,
    }));
    const after = page(stepped);
    const patch = diffPage(before, after);
    expect(patch?.kind === "patch" && patch.ranks[5]).toEqual({
      rank: 5,
      step: 11,
      loss: 2.4,
      lastLine: "step=11 loss=2.4 throughput=1500 samples/s rank=5",
      lastLineAt: 2000,
    });
    expect(applyPatch(before, patch ?? { kind: "snapshot", page: before })).toEqual(after);
    const whole = JSON.stringify(stepped).length;
    const sent = JSON.stringify(patch).length;
    console.log(`2,048 stepping ranks: patch ${sent} bytes, the ranks whole ${whole} bytes`);
    expect(sent).toBeLessThan(whole / 2);
  });

  it("sends a rank whole when a field came or went, or another rank stands at its place", () => {
    const first = page([rank(0, { suspect: true }), rank(1), rank(2)]);
    const { suspect: _gone, ...noSuspect } = rank(0);
    const second = page([noSuspect, rank(1, { lastProgressAt: 5 }), rank(3)]);
    const patch = diffPage(first, second);
    expect(patch?.kind === "patch" && patch.ranks.map((r) => [r.rank, r.whole])).toEqual([
      [0, true],
      [1, true],
      [3, true],
    ]);
    const applied = applyPatch(
      page([rank(0, { suspect: true }), rank(1), rank(3)]),
      patch ?? { kind: "snapshot", page: first },
    );
    expect(applied?.topology.ranks).toEqual(second.topology.ranks);
    expect(applied?.topology.ranks[0]).not.toHaveProperty("suspect");
  });
});
