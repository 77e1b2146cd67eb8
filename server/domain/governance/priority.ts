import type { SchedulerSettings, Workload } from "./types";

/**
 * Priority classes (docs/hyperpod-compatibility.md, "Submission rules"): a job without a class ranks 0
 * ("treated as a low priority job, with a task ranking value of 0"); a class the cluster policy does not
 * define is refused, listing the defined set.
 */

function classNamed(name: string, settings: SchedulerSettings) {
  const bare = name.endsWith("-priority") ? name.slice(0, -"-priority".length) : name;
  return settings.priorityClasses.find((spec) => spec.name === name || spec.name === bare);
}

/** The weight of the workload's priority class; 0 without one (or with one the policy does not define). */
export function priorityOf(workload: Pick<Workload, "priorityClass">, settings: SchedulerSettings): number {
  if (workload.priorityClass === null) return 0;
  return classNamed(workload.priorityClass, settings)?.weight ?? 0;
}

/**
 * The rank admission orders and preempts by: the priority weight under task ranking; with task ranking off
 * (first come, first served) every workload ranks 0, so arrival decides and no priority preempts.
 */
export function rankOf(workload: Pick<Workload, "priorityClass">, settings: SchedulerSettings): number {
  return settings.taskRanking ? priorityOf(workload, settings) : 0;
}

export function checkPriorityClass(
  name: string | null,
  settings: SchedulerSettings,
): { ok: true } | { ok: false; message: string } {
  if (name === null || classNamed(name, settings)) return { ok: true };
  const defined = settings.priorityClasses.map((spec) => spec.name).join(", ");
  return {
    ok: false,
    message: `priority class "${name}" is not defined in the cluster policy; ${
      defined === "" ? "no priority classes are defined" : `defined: ${defined}`
    }`,
  };
}
