import { describe, expect, it } from "vitest";
import type { SchedulerView } from "@/server/services/governance/governance.schema";
import { checkSchedulerDraft, emptyPriorityClass, schedulerDraftOf } from "./scheduler-model";

const view: SchedulerView = {
  version: 2,
  taskRanking: true,
  fairShare: true,
  idleResourceSharing: false,
  priorityClasses: [
    { name: "inference", weight: 90, description: "Latency-sensitive", jobs: 1 },
    { name: "training", weight: 70, description: "", jobs: 0 },
  ],
  updatedAt: null,
  updatedBy: null,
  canEdit: true,
};

describe("scheduler draft", () => {
  it("is valid as read, and sends the version it was read at", () => {
    const check = checkSchedulerDraft(schedulerDraftOf(view), 2);
    expect(check).toMatchObject({
      ok: true,
      input: {
        version: 2,
        idleResourceSharing: false,
        priorityClasses: [
          { name: "inference", weight: 90 },
          { name: "training", weight: 70 },
        ],
      },
    });
  });

  it("names a bad weight, a bad name and a duplicate class by their rows", () => {
    const draft = schedulerDraftOf(view);
    if (draft.priorityClasses[0]) draft.priorityClasses[0].weight = "101";
    const extra = { ...emptyPriorityClass(), name: "training" };
    const bad = { ...emptyPriorityClass(), name: "Bad_Name" };
    draft.priorityClasses.push(extra, bad);
    const check = checkSchedulerDraft(draft, 2);
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.errors["priorityClasses.0.weight"]).toBe("expected a weight between 0 and 100");
    expect(check.errors["priorityClasses.2.name"]).toMatch(/already defined at priorityClasses\[1\]/);
    expect(check.errors["priorityClasses.3.name"]).toMatch(/lower-case letters/);
  });
});
