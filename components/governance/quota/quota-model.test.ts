import { describe, expect, it } from "vitest";
import type { QuotaView } from "@/server/services/governance/governance.schema";
import { checkDraft, draftOf, emptyResource, inputOf } from "./quota-model";

const view: QuotaView = {
  team: "llm-research",
  displayName: "LLM Research",
  version: 3,
  activation: "Enabled",
  strategy: "LendAndBorrow",
  borrowLimitPercent: 50,
  preemptTeamTasks: "LowerPriority",
  fairShareWeight: 60,
  kueue: {
    reclaimWithinCohort: "Any",
    borrowWithinCohort: { policy: "Never", maxPriorityThreshold: null },
    lendingLimit: null,
    queueingStrategy: "BestEffortFIFO",
    withinClusterQueue: null,
  },
  description: "",
  resources: [
    { instanceType: "default", resource: "nvidia.com/gpu", guaranteed: 16, absoluteBorrowLimit: null },
    { instanceType: "default", resource: "memory", guaranteed: 64 * 2 ** 30, absoluteBorrowLimit: 2 ** 31 },
  ],
  updatedAt: null,
  updatedBy: null,
  canEdit: true,
};
const target = { team: "llm-research", version: 3 };

describe("quota draft", () => {
  it("round-trips the stored quota, memory typed in GiB and sent in bytes", () => {
    const draft = draftOf(view);
    expect(draft.resources[1]?.guaranteed).toBe("64");
    expect(draft.resources[1]?.absoluteBorrowLimit).toBe("2");
    const check = checkDraft(draft, target);
    expect(check.ok).toBe(true);
    expect(inputOf(draft, target)).toMatchObject({
      borrowLimitPercent: 50,
      resources: [
        { resource: "nvidia.com/gpu", guaranteed: 16, absoluteBorrowLimit: null },
        { resource: "memory", guaranteed: 64 * 2 ** 30, absoluteBorrowLimit: 2 ** 31 },
      ],
    });
  });

  it("names each bad field by its path with the router schema's message", () => {
    const draft = draftOf(view);
    draft.borrowLimitPercent = "0";
    draft.fairShareWeight = "abc";
    if (draft.resources[0]) draft.resources[0].guaranteed = "-1";
    const check = checkDraft(draft, target);
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.errors.borrowLimitPercent).toBe("expected a whole percent ≥ 1");
    expect(check.errors.fairShareWeight).toBe("expected a weight between 0 and 100");
    expect(check.errors["resources.0.guaranteed"]).toBe("expected a number ≥ 0");
  });

  it("refuses a duplicate resource and a borrow cap on a team that does not borrow", () => {
    const draft = draftOf(view);
    draft.strategy = "Lend";
    draft.resources.push(emptyResource());
    const check = checkDraft(draft, target);
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.errors["resources.2.resource"]).toMatch(/already listed at resources\[0\]/);
    expect(check.errors["resources.1.absoluteBorrowLimit"]).toMatch(/does not borrow \(Lend\)/);
  });

  it("sends the advanced Kueue settings, a borrow limit above 500 % included, and names a bad one", () => {
    const draft = draftOf(view);
    expect(draft.kueue).toEqual({
      reclaimWithinCohort: "Any",
      borrowPolicy: "Never",
      maxPriorityThreshold: "",
      lendingLimit: "",
      queueingStrategy: "BestEffortFIFO",
      withinClusterQueue: "",
    });
    draft.borrowLimitPercent = "800";
    draft.kueue = {
      reclaimWithinCohort: "LowerPriority",
      borrowPolicy: "LowerPriority",
      maxPriorityThreshold: "50",
      lendingLimit: "4",
      queueingStrategy: "StrictFIFO",
      withinClusterQueue: "LowerOrNewerEqualPriority",
    };
    const check = checkDraft(draft, target);
    expect(check.ok).toBe(true);
    if (!check.ok) return;
    expect(check.input.borrowLimitPercent).toBe(800);
    expect(check.input.kueue).toEqual({
      reclaimWithinCohort: "LowerPriority",
      borrowWithinCohort: { policy: "LowerPriority", maxPriorityThreshold: 50 },
      lendingLimit: 4,
      queueingStrategy: "StrictFIFO",
      withinClusterQueue: "LowerOrNewerEqualPriority",
    });
    draft.kueue = { ...draft.kueue, reclaimWithinCohort: "Never", lendingLimit: "-1" };
    const bad = checkDraft(draft, target);
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.errors["kueue.lendingLimit"]).toBe("expected a whole number of GPUs ≥ 0");
    expect(bad.errors["kueue.borrowWithinCohort.policy"]).toMatch(/never reclaims/);
  });
});
