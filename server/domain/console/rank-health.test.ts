import { describe, expect, it } from "vitest";
import type { RankHealth } from "@/server/domain/jobs/view-model";
import { type RankHealthInput, rankHealth } from "./rank-health";

type Case = {
  name: string;
  rank?: Partial<RankHealthInput["rank"]>;
  input?: Partial<Omit<RankHealthInput, "rank">>;
  expected: RankHealth;
};

const base: RankHealthInput = {
  rank: { state: "running", step: 10, ruleStates: { heartbeat: "HEALTHY" }, restarts: 0 },
  agentState: "running",
  podPhase: "Running",
  recovering: false,
  straggler: false,
};

const cases: Case[] = [
  { name: "running with a healthy rule", expected: "healthy" },
  { name: "no progress for past its threshold", input: { stalled: true }, expected: "stalled" },
  { name: "no progress beats straggler", input: { stalled: true, straggler: true }, expected: "stalled" },
  {
    name: "no progress beats waiting (rules not matched yet, progress seen)",
    rank: { ruleStates: { h: "WAITING" } },
    input: { stalled: true },
    expected: "stalled",
  },
  {
    name: "suspect beats no progress",
    rank: { suspect: true },
    input: { stalled: true },
    expected: "suspect",
  },
  {
    name: "a watched rank's HANGING rule (the fault) beats no progress",
    rank: { ruleStates: { h: "HANGING" } },
    input: { stalled: true },
    expected: "hanging",
  },
  {
    name: "restarting beats no progress",
    input: { stalled: true, recovering: true },
    expected: "restarting",
  },
  { name: "suspect (silent after printing)", rank: { suspect: true }, expected: "suspect" },
  {
    name: "suspect beats straggler",
    rank: { suspect: true },
    input: { straggler: true },
    expected: "suspect",
  },
  {
    name: "a watched rank's HANGING rule beats suspect",
    rank: { suspect: true, ruleStates: { h: "HANGING" } },
    expected: "hanging",
  },
  {
    name: "faulted beats suspect",
    rank: { suspect: true },
    input: { agentState: "faulted" },
    expected: "faulted",
  },
  {
    name: "an unwatched rank's HANGING rule does not colour it (rank 1 of a rank-0-only job)",
    rank: { logWatched: false, ruleStates: { h: "HANGING" } },
    expected: "healthy",
  },
  {
    name: "an unwatched rank's FAULTED rule does not colour it either",
    rank: { logWatched: false, ruleStates: { nan: "FAULTED" } },
    expected: "healthy",
  },
  {
    name: "an unwatched rank that went silent is suspect",
    rank: { logWatched: false, suspect: true, ruleStates: { h: "HANGING" } },
    expected: "suspect",
  },
  {
    name: "an unwatched rank without steps is waiting",
    rank: { logWatched: false, step: null, ruleStates: { h: "HANGING" } },
    expected: "waiting",
  },
  { name: "crashed rank", rank: { state: "crashed" }, expected: "faulted" },
  { name: "a FAULTED rule", rank: { ruleStates: { a: "HEALTHY", b: "FAULTED" } }, expected: "faulted" },
  { name: "agent FAULTED (upper case)", input: { agentState: "FAULTED" }, expected: "faulted" },
  { name: "pod Failed", input: { podPhase: "Failed" }, expected: "faulted" },
  {
    name: "faulted beats recovering",
    rank: { state: "crashed" },
    input: { recovering: true },
    expected: "faulted",
  },
  { name: "job recovering", input: { recovering: true }, expected: "restarting" },
  { name: "agent stopping", input: { agentState: "stopping" }, expected: "restarting" },
  {
    name: "agent READY while recovering",
    input: { agentState: "READY", recovering: true },
    expected: "restarting",
  },
  { name: "rank starting after a restart", rank: { state: "starting", restarts: 2 }, expected: "restarting" },
  {
    name: "restarting beats hanging",
    rank: { ruleStates: { a: "HANGING" } },
    input: { recovering: true },
    expected: "restarting",
  },
  { name: "a HANGING rule", rank: { ruleStates: { a: "SLOW", b: "HANGING" } }, expected: "hanging" },
  { name: "a SLOW rule", rank: { ruleStates: { a: "HEALTHY", b: "SLOW" } }, expected: "slow" },
  {
    name: "slow beats straggler",
    rank: { ruleStates: { a: "SLOW" } },
    input: { straggler: true },
    expected: "slow",
  },
  { name: "straggler", input: { straggler: true }, expected: "straggler" },
  {
    name: "straggler beats waiting",
    rank: { step: null },
    input: { straggler: true },
    expected: "straggler",
  },
  { name: "every rule WAITING", rank: { ruleStates: { a: "WAITING", b: "WAITING" } }, expected: "waiting" },
  {
    name: "HEALTHY beats WAITING",
    rank: { ruleStates: { a: "WAITING", b: "healthy" } },
    expected: "healthy",
  },
  { name: "no rules, no step yet", rank: { ruleStates: {}, step: null }, expected: "waiting" },
  { name: "no rules, stepping", rank: { ruleStates: {}, step: 3 }, expected: "healthy" },
  { name: "first start", rank: { state: "starting", restarts: 0 }, expected: "waiting" },
  { name: "agent READY, job not recovering", input: { agentState: "ready" }, expected: "waiting" },
  { name: "agent INIT", input: { agentState: "INIT" }, expected: "waiting" },
  { name: "pod Pending", input: { podPhase: "Pending", agentState: null }, expected: "waiting" },
  { name: "unknown agent state, healthy rule", input: { agentState: null }, expected: "healthy" },
  {
    name: "exited cleanly",
    rank: { state: "exited" },
    input: { agentState: "completed" },
    expected: "healthy",
  },
];

describe("rankHealth", () => {
  it.each(cases)("$name → $expected", ({ rank, input, expected }) => {
    expect(rankHealth({ ...base, ...input, rank: { ...base.rank, ...rank } })).toBe(expected);
  });
});
