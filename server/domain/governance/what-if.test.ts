import { describe, expect, it } from "vitest";
import { gpus, pending, running, snapshotOf, team } from "./governance.fixtures";
import type { GovernanceConfig } from "./types";
import { whatIf } from "./what-if";

const borrowed = snapshotOf({
  teams: [team("a", 4, { active: false }), team("b", 4)],
  capacity: { default: gpus(8) },
  admitted: [running({ key: "b/big", gpus: 8, at: 1 })],
  pending: [pending({ key: "a/job", gpus: 4, at: 2 }), pending({ key: "b/more", gpus: 2, at: 3 })],
});

const withTeams = (config: GovernanceConfig, ...teams: GovernanceConfig["teams"]): GovernanceConfig => ({
  ...config,
  teams,
});

describe("whatIf", () => {
  it("activating a lender's quota: its job would reclaim, preempting the borrower", () => {
    const next = withTeams(borrowed.config, team("a", 4), team("b", 4));
    const result = whatIf(borrowed, next);
    expect(result.preempted.map((p) => [p.victim.key, p.reason, p.by])).toEqual([
      ["b/big", "InCohortReclamation", "a/job"],
    ]);
    expect(result.admitted.map((a) => [a.workload.key, a.preempts])).toEqual([["a/job", ["b/big"]]]);
  });

  it("raising a guarantee admits what now fits and preempts nothing", () => {
    const snapshot = snapshotOf({
      teams: [team("a", 4, { strategy: "DontLend" })],
      capacity: { default: gpus(8) },
      admitted: [running({ key: "a/own", gpus: 4 })],
      pending: [pending({ key: "a/next", gpus: 2, at: 1 }), pending({ key: "a/huge", gpus: 6, at: 2 })],
    });
    const result = whatIf(snapshot, withTeams(snapshot.config, team("a", 6, { strategy: "DontLend" })));
    expect(result.preempted).toEqual([]);
    expect(result.admitted.map((a) => a.workload.key)).toEqual(["a/next"]);
  });

  it("the same configuration changes nothing", () => {
    expect(whatIf(borrowed, borrowed.config)).toEqual({ preempted: [], admitted: [] });
  });

  it("turning task ranking on lets a high-priority job preempt in its team", () => {
    const snapshot = snapshotOf({
      teams: [team("a", 4, { strategy: "DontLend" })],
      capacity: { default: gpus(4) },
      scheduler: { taskRanking: false },
      admitted: [running({ key: "a/low", gpus: 4, priority: "experimentation" })],
      pending: [pending({ key: "a/urgent", gpus: 4, priority: "inference", at: 1 })],
    });
    const next = { ...snapshot.config, scheduler: { ...snapshot.config.scheduler, taskRanking: true } };
    const result = whatIf(snapshot, next);
    expect(result.preempted.map((p) => [p.victim.key, p.reason])).toEqual([["a/low", "InClusterQueue"]]);
  });
});
