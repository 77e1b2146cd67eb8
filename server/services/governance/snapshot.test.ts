import { describe, expect, it } from "vitest";
import type { ClusterNode } from "@/server/cluster/types";
import { teamCapacities } from "@/server/domain/governance";
import type { GovernanceConfig, TeamQuota } from "@/server/domain/governance/types";
import type { LiveAdmission, LiveJob } from "@/server/domain/operator-api/contract";
import { jobCounts, queueOf } from "./queue";
import { snapshotOf } from "./snapshot";
import { whatIfView, whyPendingView } from "./what-if";

/**
 * The console's snapshot of live jobs, and the queue, what-if and why-pending answers over it, computed by the
 * domain's own admission logic (no I/O: the live jobs are what the operator's API would send).
 */
const NOW = 1_800_000_000_000;
const node = (name: string, gpus: number, healthy = true): ClusterNode => ({
  name,
  health: healthy ? "Schedulable" : "UnschedulablePendingReboot",
  ready: true,
  gpus,
  changedAt: 0,
});

function quota(team: string, gpus: number): TeamQuota {
  return {
    team,
    active: true,
    guaranteed: { default: { "nvidia.com/gpu": gpus } },
    strategy: "LendAndBorrow",
    borrowLimitPercent: 100,
    absoluteBorrowLimit: {},
    preemptTeamTasks: "LowerPriority",
    fairShareWeight: 0,
  };
}

const config: GovernanceConfig = {
  teams: [quota("llm-research", 2), quota("vision", 2)],
  scheduler: {
    priorityClasses: [
      { name: "inference", weight: 90 },
      { name: "training", weight: 70 },
    ],
    taskRanking: true,
    fairShare: true,
    idleResourceSharing: true,
  },
};

function admission(state: LiveAdmission["state"], extra: Partial<LiveAdmission> = {}): LiveAdmission {
  return { state, reason: "", message: "", since: NOW - 60_000, preemptedBy: null, flavor: null, ...extra };
}

function job(opts: {
  name: string;
  team?: string;
  namespace?: string;
  gpus: number;
  admission?: LiveAdmission | null;
  phase?: LiveJob["phase"];
  createdAt?: number;
  priorityClass?: string | null;
}): LiveJob {
  return {
    namespace: opts.namespace ?? `hyperpod-ns-${opts.team}`,
    name: opts.name,
    createdAt: opts.createdAt ?? NOW - 120_000,
    gpus: opts.gpus,
    priorityClass: opts.priorityClass ?? null,
    queue: null,
    phase: opts.phase ?? "Running",
    status: "",
    recovery: null,
    restartCount: 0,
    pods: [],
    ranksTotal: 1,
    ranksRunning: 1,
    updatedAt: NOW,
    ...(opts.admission === undefined ? {} : { admission: opts.admission }),
  };
}

const namespaces = new Map([
  ["hyperpod-ns-llm-research", "llm-research"],
  ["hyperpod-ns-vision", "vision"],
]);

/** 4 healthy GPUs; vision and llm-research each hold their 2; llm-research's next job (same priority) asks for 1 more. */
function situation(extra: LiveJob[] = [], withConfig: GovernanceConfig = config) {
  return snapshotOf({
    config: withConfig,
    nodes: [node("n1", 2), node("n2", 2), node("broken", 8, false)],
    jobs: [
      job({ name: "v1", team: "vision", gpus: 2, admission: admission("Admitted") }),
      job({
        name: "l1",
        team: "llm-research",
        gpus: 2,
        admission: admission("Admitted"),
        priorityClass: "training-priority",
      }),
      job({
        name: "l2",
        team: "llm-research",
        gpus: 1,
        admission: admission("Pending", { reason: "InsufficientQuota", since: NOW - 30_000 }),
        createdAt: NOW - 30_000,
        priorityClass: "training-priority",
      }),
      ...extra,
    ],
    teamOfNamespace: namespaces,
    now: NOW,
  });
}

describe("the console's governance snapshot", () => {
  it("counts healthy nodes only, and takes ungoverned jobs off the capacity", () => {
    const snap = situation([
      job({ name: "outside", namespace: "default", gpus: 1 }),
      job({ name: "not-governed", team: "vision", gpus: 1, admission: null }),
      job({ name: "done", team: "vision", gpus: 4, phase: "Succeeded", admission: admission("Admitted") }),
    ]);
    expect(snap.snapshot.capacity).toEqual({ default: { "nvidia.com/gpu": 2 } });
    expect(snap.snapshot.admitted.map((w) => w.key).sort()).toEqual([
      "hyperpod-ns-llm-research/l1",
      "hyperpod-ns-vision/v1",
    ]);
    expect(snap.snapshot.pending.map((w) => w.key)).toEqual(["hyperpod-ns-llm-research/l2"]);
    expect(snap.snapshot.pending[0]?.priorityClass).toBe("training");
  });

  it("counts a job the operator says nothing about by its GPUs, admitted while active", () => {
    const snap = situation([job({ name: "old", team: "vision", gpus: 3 })]);
    const old = snap.snapshot.admitted.find((w) => w.key === "hyperpod-ns-vision/old");
    expect(old?.request).toEqual({ "nvidia.com/gpu": 3 });
    const vision = teamCapacities(snap.snapshot).find(
      (row) => row.team === "vision" && row.resource === "nvidia.com/gpu",
    );
    expect(vision).toMatchObject({ guaranteed: 2, used: 5, borrowed: 3 });
  });

  it("lists a team's queue: pending with position and priority, admitted, preempted by whom", () => {
    const snap = situation([
      job({
        name: "l0",
        team: "llm-research",
        gpus: 1,
        admission: admission("Preempted", {
          reason: "InCohortReclamation",
          message: "Preempted to accommodate a workload",
          preemptedBy: "hyperpod-ns-vision/v1",
        }),
      }),
    ]);
    const queue = queueOf(snap, "llm-research");
    expect(queue.pending.map((row) => [row.name, row.position, row.priority, row.reason])).toEqual([
      ["l2", 1, 70, "InsufficientQuota"],
    ]);
    expect(queue.pending[0]?.ageMs).toBe(30_000);
    expect(queue.admitted.map((row) => row.name)).toEqual(["l1"]);
    expect(queue.preempted.map((row) => [row.name, row.by, row.reason])).toEqual([
      ["l0", "hyperpod-ns-vision/v1", "InCohortReclamation"],
    ]);
    expect(jobCounts(snap).get("llm-research")).toEqual({ pending: 1, admitted: 1, preempted: 1 });
  });

  it("says why a job is pending, in numbers", () => {
    const snap = situation();
    const answer = whyPendingView(snap.snapshot, "hyperpod-ns-llm-research/l2", "llm-research");
    expect(answer?.position).toBe(1);
    expect(answer?.shortfall).toContainEqual(
      expect.objectContaining({ resource: "nvidia.com/gpu", need: 1, available: 0, missing: 1 }),
    );
    expect(answer?.text).toContain("hyperpod-ns-llm-research/l2");
    expect(whyPendingView(snap.snapshot, "hyperpod-ns-vision/v1", "vision")).toBeNull();
  });

  it("shows what a quota change would do: reclaim from a borrower, admit the pending job", () => {
    // vision is guaranteed 1 and borrows the second GPU of its running 2-GPU job.
    const teams = [quota("llm-research", 2), quota("vision", 1)];
    const snap = situation([], { ...config, teams });
    const llmQuota = (gpus: number) => ({
      kind: "quota" as const,
      quota: {
        team: "llm-research",
        version: 1,
        activation: "Enabled" as const,
        strategy: "LendAndBorrow" as const,
        borrowLimitPercent: 100,
        preemptTeamTasks: "LowerPriority" as const,
        fairShareWeight: 0,
        resources: [{ instanceType: "default", resource: "nvidia.com/gpu", guaranteed: gpus }],
      },
    });
    const capacity = { ok: true as const, gpus: 4 };
    expect(whatIfView({ snapshot: snap.snapshot, change: llmQuota(2), capacity })).toEqual({
      overcommit: { state: "fits" },
      preempted: [],
      admitted: [],
    });
    const raised = whatIfView({ snapshot: snap.snapshot, change: llmQuota(3), capacity });
    expect(raised.overcommit).toEqual({ state: "fits" });
    expect(raised.preempted).toEqual([
      expect.objectContaining({
        key: "hyperpod-ns-vision/v1",
        team: "vision",
        by: "hyperpod-ns-llm-research/l2",
        reason: "InCohortReclamation",
      }),
    ]);
    expect(raised.admitted.map((row) => [row.key, row.preempts])).toEqual([
      ["hyperpod-ns-llm-research/l2", ["hyperpod-ns-vision/v1"]],
    ]);
    // 4 on a 4-GPU cluster where vision is guaranteed 1: the what-if says saving needs an over-commit choice.
    expect(whatIfView({ snapshot: snap.snapshot, change: llmQuota(4), capacity }).overcommit).toEqual({
      state: "over",
      asked: 4,
      others: 1,
      capacity: 4,
      atMost: 3,
      message:
        "llm-research: guaranteed nvidia.com/gpu 4 would over-commit the cluster: the other teams are guaranteed 1 " +
        "and the cluster has 4, so at most 3 fits; lower it, or allow over-commit (guarantees then promise more " +
        "than the cluster can give at once)",
    });
    const unread = { ok: false as const, reason: "connect ECONNREFUSED" };
    expect(whatIfView({ snapshot: snap.snapshot, change: llmQuota(4), capacity: unread }).overcommit).toEqual(
      {
        state: "unknown",
        reason: "connect ECONNREFUSED",
      },
    );
    // Lowering never needs the choice, whatever the cluster.
    expect(whatIfView({ snapshot: snap.snapshot, change: llmQuota(1), capacity: unread }).overcommit).toEqual(
      {
        state: "fits",
      },
    );
  });

  it("shows what turning on task ranking would do: the higher class preempts within its team", () => {
    const fcfs = { ...config, scheduler: { ...config.scheduler, taskRanking: false } };
    const urgent = job({
      name: "l3",
      team: "llm-research",
      gpus: 2,
      admission: admission("Pending"),
      createdAt: NOW - 10_000,
      priorityClass: "inference-priority",
    });
    const snap = situation([urgent], fcfs);
    const view = whatIfView({
      snapshot: snap.snapshot,
      capacity: { ok: true, gpus: 4 },
      change: {
        kind: "scheduler",
        scheduler: {
          version: 1,
          ...config.scheduler,
          priorityClasses: [...config.scheduler.priorityClasses],
          taskRanking: true,
        },
      },
    });
    expect(view.preempted).toEqual([
      expect.objectContaining({
        key: "hyperpod-ns-llm-research/l1",
        by: "hyperpod-ns-llm-research/l3",
        reason: "InClusterQueue",
      }),
    ]);
    expect(view.admitted.map((row) => row.key)).toEqual(["hyperpod-ns-llm-research/l3"]);
  });
});
