import { z } from "zod";

const priorityWeight = z
  .number({ error: "expected a priority weight between 0 and 100" })
  .int({ message: "expected a whole number" })
  .min(0, { message: "expected a priority weight between 0 and 100" })
  .max(100, { message: "expected a priority weight between 0 and 100" });

/**
 * A team's advanced Kueue settings (server/domain/governance/kueue-settings.ts), each as Kueue's ClusterQueue
 * field of the same name; Kueue's own rule that a team that never reclaims cannot preempt while borrowing
 * is checked here, so Kueue never refuses what was saved.
 */
export const kueueSettingsSchema = z
  .strictObject({
    reclaimWithinCohort: z.enum(["Never", "LowerPriority", "Any"], {
      error: "expected Never, LowerPriority or Any",
    }),
    borrowWithinCohort: z.strictObject({
      policy: z.enum(["Never", "LowerPriority"], { error: "expected Never or LowerPriority" }),
      /** Only workloads of at most this priority weight are preempted; null: any lower one. */
      maxPriorityThreshold: priorityWeight.nullable(),
    }),
    /** GPUs of each instance type the team lends at most; null: all of its guarantee. */
    lendingLimit: z
      .number({ error: "expected a whole number of GPUs ≥ 0" })
      .int({ message: "expected a whole number of GPUs ≥ 0" })
      .min(0, { message: "expected a whole number of GPUs ≥ 0" })
      .max(1e9, { message: "expected at most 10^9 GPUs" })
      .nullable(),
    queueingStrategy: z.enum(["StrictFIFO", "BestEffortFIFO"], {
      error: "expected StrictFIFO or BestEffortFIFO",
    }),
    /** null: from preemptTeamTasks. */
    withinClusterQueue: z
      .enum(["Never", "LowerPriority", "LowerOrNewerEqualPriority"], {
        error: "expected Never, LowerPriority or LowerOrNewerEqualPriority",
      })
      .nullable(),
  })
  .superRefine((knobs, ctx) => {
    if (knobs.reclaimWithinCohort === "Never" && knobs.borrowWithinCohort.policy !== "Never")
      ctx.addIssue({
        code: "custom",
        path: ["borrowWithinCohort", "policy"],
        message: "a team that never reclaims (reclaimWithinCohort Never) cannot preempt while borrowing",
      });
    if (knobs.borrowWithinCohort.policy === "Never" && knobs.borrowWithinCohort.maxPriorityThreshold !== null)
      ctx.addIssue({
        code: "custom",
        path: ["borrowWithinCohort", "maxPriorityThreshold"],
        message: "a threshold applies only with policy LowerPriority: remove it or choose LowerPriority",
      });
  });
export type KueueSettingsInput = z.input<typeof kueueSettingsSchema>;

/** Advanced settings that the team's sharing strategy makes meaningless (paths under the quota's `kueue`). */
export function checkKueueForStrategy(
  strategy: "LendAndBorrow" | "Lend" | "DontLend",
  knobs: z.output<typeof kueueSettingsSchema>,
  ctx: z.RefinementCtx,
): void {
  if (knobs.lendingLimit !== null && strategy === "DontLend")
    ctx.addIssue({
      code: "custom",
      path: ["kueue", "lendingLimit"],
      message:
        "a team that does not lend (DontLend) has no lending limit: remove it or choose Lend or LendAndBorrow",
    });
  if (knobs.borrowWithinCohort.policy !== "Never" && strategy !== "LendAndBorrow")
    ctx.addIssue({
      code: "custom",
      path: ["kueue", "borrowWithinCohort", "policy"],
      message: `a team that does not borrow (${strategy}) cannot preempt while borrowing: choose Never or LendAndBorrow`,
    });
}
