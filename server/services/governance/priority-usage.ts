import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";
import { jobKey, priorityClassOfLabel } from "./snapshot";

const FINISHED = new Set(["Succeeded", "Failed"]);

/** Unfinished jobs per priority class they name (`kueue.x-k8s.io/priority-class`, `-priority` stripped). */
export async function priorityClassUsers(source: ClusterSource): Promise<Map<string, string[]>> {
  const users = new Map<string, string[]>();
  for (const job of await source.jobs()) {
    const name = priorityClassOfLabel(job.priorityClass);
    if (name === null || FINISHED.has(job.phase)) continue;
    users.set(name, [...(users.get(name) ?? []), jobKey(job)]);
  }
  return users;
}

/** Best effort, for showing counts: no cluster, no counts. */
export async function priorityClassUsage(
  cluster: () => Promise<ClusterSource>,
): Promise<Map<string, number>> {
  try {
    const users = await priorityClassUsers(await cluster());
    return new Map([...users].map(([name, jobs]) => [name, jobs.length]));
  } catch {
    return new Map();
  }
}

/**
 * The users of the classes a scheduler change removes; a removal is refused (UNAVAILABLE) when the cluster
 * cannot be read, since nobody could tell whether a job still names it.
 */
export async function usersOfRemoved(args: {
  db: Db;
  cluster: () => Promise<ClusterSource>;
  next: ReadonlyArray<{ name: string }>;
}): Promise<Map<string, string[]>> {
  const kept = new Set(args.next.map((entry) => entry.name));
  const current = await args.db.priorityClass.findMany({ select: { name: true } });
  const removed = current.map((entry) => entry.name).filter((name) => !kept.has(name));
  if (removed.length === 0) return new Map();
  try {
    return await priorityClassUsers(await args.cluster());
  } catch (error) {
    throw new AppError(
      "UNAVAILABLE",
      `cannot tell whether jobs still use priority class ${removed.join(", ")} (the cluster cannot be read: ${error instanceof Error ? error.message : String(error)}); try again`,
    );
  }
}
