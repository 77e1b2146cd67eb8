import type { PriorityClassObject } from "./workload-client";

/** A WorkloadPriorityClass resolved for a Workload's spec (null: none named, priority 0). */
export type ResolvedPriority =
  | { ok: true; priority: { className: string; value: number } | null }
  | { ok: false; message: string };

/**
 * The WorkloadPriorityClass `className` among those Kueue holds; an unknown one is refused with the defined
 * ones listed (docs/hyperpod-compatibility.md, "Submission rules": "the submission fails and an error message
 * provides the defined set").
 */
export function resolvePriority(classes: PriorityClassObject[], className: string | null): ResolvedPriority {
  if (!className) return { ok: true, priority: null };
  const found = classes.find((each) => each.metadata?.name === className);
  if (found) return { ok: true, priority: { className, value: found.value ?? 0 } };
  const defined = classes.map((each) => each.metadata?.name ?? "").sort();
  const list = defined.length > 0 ? defined.join(", ") : "none";
  return {
    ok: false,
    message: `priority class "${className}" is not defined; the defined priority classes are: ${list}`,
  };
}
