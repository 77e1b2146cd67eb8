import path from "node:path";
import { AppError } from "@/server/errors";
import type { AgentCommand } from "./agent-command";
import type { LeaseStore } from "./pod-leases";
import { type PodUser, podUsersEnabled, preparePodFiles } from "./pod-user";
import { type AccountPool, createAccountPool } from "./pod-user-pool";

/** Who a pod runs as under a root operator: its own user, and its job's group (pods.json keeps it). */
export type PodIdentity = { user: string; uid: number; group: string; gid: number; jobUid: string };

/** A pod's process, as it is to be spawned. */
export type PodLaunch = {
  identity: PodIdentity | null;
  ids: { uid?: number; gid?: number };
  host: Record<string, string>;
  command: AgentCommand;
};

/**
 * Files the pod's processes create are its job group's (umask 007): its checkpoints can be overwritten in
 * place (torch.save) by a replacement pod, which is another user of the same group, and nothing it leaves
 * in /tmp is readable by other accounts. The shell execs the agent, which keeps the pid.
 */
const UMASK_SHELL = ["-c", 'umask 007 && exec "$@"', "rebound-pod"];

export type PodIdentities = {
  /** Leases the pod's user (and its job's group, if it has none yet), prepares its files. */
  launch(input: {
    root: string;
    podDir: string;
    namespace: string;
    pod: string;
    job: { name: string; uid: string; dir: string; shared: readonly string[] };
    command: AgentCommand;
  }): Promise<PodLaunch>;
  /** Holds again what an earlier operator of this data dir leased to a running pod; false: no longer its. */
  adopt(pod: { namespace: string; name: string; job: string; runAs?: PodIdentity }): boolean;
  /** The pod is gone: its user's lease ends (directories handed back at once, processes and /tmp after). */
  releasePod(pod: { namespace: string; name: string; runAs?: PodIdentity | null }): void;
  /** The job is deleted: its group's lease ends. */
  releaseJob(job: { namespace: string; name: string; uid: string }): void;
};

const podOwner = (namespace: string, pod: string) => `${namespace}/${pod}`;
const jobOwner = (namespace: string, job: string, uid: string) => `${namespace}/${job}/${uid}`;

/** Not root: pods run as the operator does, with their files as they are. */
const asOperator: PodIdentities = {
  launch: async (input) => ({ identity: null, ids: {}, host: {}, command: input.command }),
  adopt: () => true,
  releasePod: () => undefined,
  releaseJob: () => undefined,
};

export function createPodIdentities(opts: {
  dataDir: string;
  store?: LeaseStore;
  enabled?: boolean;
  onError?: (error: Error) => void;
}): PodIdentities {
  if (!(opts.enabled ?? podUsersEnabled())) return asOperator;
  const users: AccountPool = createAccountPool("user", { dataDir: opts.dataDir, store: opts.store });
  const groups: AccountPool = createAccountPool("group", { dataDir: opts.dataDir, store: opts.store });
  /** Each job's group, by its lease owner (a promise: a job's pods are created together, and share one). */
  const jobGroups = new Map<string, Promise<{ name: string; id: number }>>();
  const report = (error: unknown) => opts.onError?.(error as Error);

  // Async, so that a store that cannot be read rejects (the pod fails saying why) rather than throws.
  const groupOf = async (
    namespace: string,
    job: { name: string; uid: string; dir: string; shared: readonly string[] },
  ) => {
    const owner = jobOwner(namespace, job.name, job.uid);
    const known = jobGroups.get(owner);
    if (known) return known;
    // An earlier operator of this data dir may have leased one: hold it again, its files keep their group.
    const earlier = groups.leasedTo(owner);
    const adopted = earlier ? groups.adopt(earlier, owner) : null;
    const group = adopted ? Promise.resolve(adopted) : groups.acquire(owner, [job.dir, ...job.shared]);
    jobGroups.set(owner, group);
    group.catch(() => jobGroups.delete(owner));
    return group;
  };

  const adoptPod = (pod: Parameters<PodIdentities["adopt"]>[0]): boolean => {
    if (!pod.runAs) return false;
    const owner = jobOwner(pod.namespace, pod.job, pod.runAs.jobUid);
    const group = jobGroups.has(owner) ? pod.runAs : groups.adopt(pod.runAs.group, owner);
    if (!group || !users.adopt(pod.runAs.user, podOwner(pod.namespace, pod.name))) return false;
    jobGroups.set(owner, Promise.resolve({ name: pod.runAs.group, id: pod.runAs.gid }));
    return true;
  };

  return {
    async launch(input) {
      const fail = (error: unknown): never => {
        throw new AppError("UNAVAILABLE", `pod ${input.pod}: ${(error as Error).message}`);
      };
      const logs = path.join(input.podDir, "logs");
      const home = path.join(input.podDir, "home");
      const group = await groupOf(input.namespace, input.job).catch(fail);
      const owner = podOwner(input.namespace, input.pod);
      const user = await users.acquire(owner, [logs, home]).catch(fail);
      const runAs: PodUser = { name: user.name, uid: user.id, gid: group.id };
      try {
        preparePodFiles(runAs, {
          root: input.root,
          owned: [logs, home],
          job: { dir: input.job.dir, shared: input.job.shared },
          // The program (node, or hyperpodrun where installed) and the script our agent is.
          runs: [input.command.command].filter((file) => path.isAbsolute(file)),
          reads: input.command.args.slice(0, 1).filter((file) => file.endsWith("rebound-agent.mjs")),
        });
      } catch (error) {
        users.release(user.name, owner).catch(report);
        fail(error);
      }
      return {
        identity: { user: user.name, uid: user.id, group: group.name, gid: group.id, jobUid: input.job.uid },
        ids: { uid: user.id, gid: group.id },
        host: { HOME: home },
        command: { command: "/bin/sh", args: [...UMASK_SHELL, input.command.command, ...input.command.args] },
      };
    },
    adopt(pod) {
      try {
        return adoptPod(pod);
      } catch (error) {
        report(error);
        return false;
      }
    },
    releasePod(pod) {
      if (pod.runAs) users.release(pod.runAs.user, podOwner(pod.namespace, pod.name)).catch(report);
    },
    releaseJob(job) {
      const owner = jobOwner(job.namespace, job.name, job.uid);
      const known = jobGroups.get(owner);
      jobGroups.delete(owner);
      const name = known ? known.then((group) => group.name) : Promise.resolve(groups.leasedTo(owner));
      name.then((found) => (found ? groups.release(found, owner) : undefined)).catch(report);
    },
  };
}
