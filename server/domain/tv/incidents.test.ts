import { describe, expect, it } from "vitest";
import { incidentsOf, lastedMs, MAX_INCIDENTS, runningFor } from "./incidents";

const teamOfNamespace = new Map([
  ["vision", { id: "t1", name: "vision" }],
  ["nlp", { id: "t2", name: "nlp" }],
]);
const recovery = (faultAt: number) => ({ action: "PLR", stage: "starting", reason: "RankCrashed", faultAt });
const jobs = [
  { namespace: "vision", name: "resnet", recovery: recovery(5_000), pods: [{ node: "node-1" }] },
  { namespace: "vision", name: "vit", recovery: null, pods: [{ node: "node-2" }] },
  { namespace: "nlp", name: "llama", recovery: recovery(1_000), pods: [{ node: "node-3" }] },
  { namespace: "scratch", name: "adhoc", recovery: recovery(2_000), pods: [{ node: null }] },
];
const nodes = [
  { name: "node-1", health: "Schedulable", ready: true, changedAt: 0 },
  { name: "node-2", health: "UnschedulablePendingReplacement", ready: true, changedAt: 9_000 },
  { name: "node-3", health: "Schedulable", ready: false, changedAt: 7_000 },
  { name: "node-4", health: "Unschedulable", ready: false, changedAt: 3_000 },
];

describe("incidentsOf", () => {
  it("lists recovering jobs and unhealthy nodes, longest-lasting first, for the whole cluster", () => {
    const incidents = incidentsOf({ jobs, nodes, scope: { all: true }, teamOfNamespace, now: 10_000 });
    expect(incidents.jobs.map((job) => [job.name, job.team, job.since])).toEqual([
      ["llama", "nlp", 1_000],
      ["adhoc", null, 2_000],
      ["resnet", "vision", 5_000],
    ]);
    expect(incidents.nodes.map((node) => node.name)).toEqual(["node-4", "node-3", "node-2"]);
    expect(incidents.jobs[0]).toMatchObject({ reason: "RankCrashed", action: "PLR", stage: "starting" });
  });

  it("a team scope sees its own jobs and only the unhealthy nodes its jobs run on", () => {
    const incidents = incidentsOf({
      jobs,
      nodes,
      scope: { all: false, teamIds: ["t1"] },
      teamOfNamespace,
      now: 10_000,
    });
    expect(incidents.jobs.map((job) => job.name)).toEqual(["resnet"]);
    expect(incidents.nodes.map((node) => node.name)).toEqual(["node-2"]);
  });

  it("caps each list and counts the rest", () => {
    const many = Array.from({ length: MAX_INCIDENTS + 3 }, (_, index) => ({
      name: `n${index}`,
      health: "Unschedulable",
      ready: false,
      changedAt: index,
    }));
    const incidents = incidentsOf({
      jobs: [],
      nodes: many,
      scope: { all: true },
      teamOfNamespace,
      now: 10_000,
    });
    expect(incidents.nodes).toHaveLength(MAX_INCIDENTS);
    expect(incidents.moreNodes).toBe(3);
    expect(incidents.moreJobs).toBe(0);
  });

  it("an incident's duration never goes negative, and is unknown (—) where the source keeps no start", () => {
    expect(lastedMs(10_000, 75_000)).toBe(65_000);
    expect(lastedMs(10_000, 9_000)).toBe(0);
    expect(lastedMs(0, 75_000)).toBeNull();
  });

  it("each incident carries how long it had lasted when the frame was assembled", () => {
    const incidents = incidentsOf({ jobs, nodes, scope: { all: true }, teamOfNamespace, now: 60_000 });
    expect(incidents.nodes.map((node) => [node.name, node.lastedMs])).toEqual([
      ["node-4", 57_000],
      ["node-3", 53_000],
      ["node-2", 51_000],
    ]);
    expect(incidents.jobs[0]?.lastedMs).toBe(59_000);
  });

  it("a screen whose clock is behind the console's still shows the incident running, not 0 ms", () => {
    // The console assembled the frame at 60 s, the node fault 51 s before; the screen's clock is 5 min
    // behind: it received the frame at -240 s on its clock and it is now 3 s later.
    const receivedAt = 60_000 - 300_000;
    expect(runningFor({ lastedMs: 51_000, receivedAt, now: receivedAt + 3000 })).toBe(54_000);
    expect(runningFor({ lastedMs: null, receivedAt, now: receivedAt })).toBeNull();
  });
});
