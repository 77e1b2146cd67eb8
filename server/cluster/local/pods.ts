import { type ChildProcess, spawn } from "node:child_process";
import { fstatSync, mkdirSync, openSync } from "node:fs";
import path from "node:path";
import { lowerPriority } from "@/server/agent/priority";
import { AGENT_CREDENTIAL_ENV, agentCredentials, loadAgentKey } from "@/server/cluster/agent-credential";
import type { ClusterJob, ClusterPod, JobRef } from "@/server/cluster/types";
import { AppError } from "@/server/errors";
import { findFreePort } from "@/server/http/free-port";
import { localAgentScript } from "./agent-bundle";
import { type AgentCommand, containerArgv, localAgentCommand, localPodEnv } from "./agent-command";
import { hostEnvironment } from "./host-env";
import { podDir as podDirOf } from "./pod-dirs";
import { lastLines, type PodExit } from "./pod-exit";
import { createPodIdentities, type PodIdentity } from "./pod-identity";
import {
  loadPodRecords,
  type PodRecord,
  savePodRecords,
  savePrometheusTargets,
  toClusterPod,
} from "./pod-records";
import { isAlive, killTree } from "./process-tree";

/** Pods of the local back end: each is an agent process started from the pod template's container command. */
export type PodManager = {
  create(input: {
    job: ClusterJob;
    replicaSpec: string;
    index: number;
    node: string;
    gpus: number;
    env: Record<string, string>;
    /** The job's directory (its fault file) and those its pods write together (checkpoints). */
    jobFiles: { dir: string; shared: readonly string[] };
  }): Promise<ClusterPod>;
  /** Who the pod's processes run as (a root operator's pods: a user of its own, its job's group); null: as the operator. */
  runAsOf(namespace: string, podName: string): PodIdentity | null;
  /** The job is deleted: its group goes back to the pool (its pods' users went when they were removed). */
  releaseJob(job: { namespace: string; name: string; uid: string }): void;
  /** The agent process of a pod (null when unknown). */
  pidOf(namespace: string, podName: string): number | null;
  /** The credential of the pod whose agent listens at `agentUrl` (agent-credential.ts); null: no such pod. */
  credentialFor(agentUrl: string): string | null;
  /** GPUs held by running pods, per node (the local scheduler's view of capacity). */
  gpusInUse(): Map<string, number>;
  remove(ref: JobRef, podName: string): void;
  list(ref: JobRef): ClusterPod[];
  all(): ClusterPod[];
  killNode(node: string): number;
  stopAll(): void;
  /** Names of the job's pods stopped on purpose by a previous operator's clean stop, not created since. */
  stoppedPods(ref: JobRef): string[];
  dispose(): void;
};

function templateContainers(job: ClusterJob, replicaSpec: string): unknown[] {
  const spec = job.object.spec.replicaSpecs.find((candidate) => candidate.name === replicaSpec);
  return spec?.template.spec.containers ?? [];
}

/**
 * Pods run below the control plane, as a kubelet's pods run in kubepods.slice beside the CPU it reserves
 * for itself and the system: on one machine the operator, the console and Postgres share the cores with
 * every agent and rank, and a restart of 64 ranks (8 agents forking 8 workers each) must not leave the
 * operator waiting for CPU while it takes the agents' answers. Agents get this nice value (process and
 * autogroup); their workers stay at the agent's, see LOCAL_WORKER_NICE for why they are not lowered.
 */
const POD_NICE = 5;

export function createPodManager(opts: {
  dataDir: string;
  repoRoot: string;
  onChange: (ref: JobRef) => void;
  /** An agent process exited on its own (not removed, stopped or killed with its node): say why. */
  onExit?: (exit: PodExit) => void;
  /** Also keep a Prometheus file_sd targets file of the running agents here. */
  prometheusTargetsFile?: string;
  /** A pod account could not be handed back (its lease then ends when the next taker finds it stale). */
  onReleaseError?: (error: Error) => void;
}): PodManager {
  const identities = createPodIdentities({ dataDir: opts.dataDir, onError: opts.onReleaseError });
  const file = path.join(opts.dataDir, "pods.json");
  const records = new Map<string, PodRecord>();
  const handles = new Map<string, ChildProcess>();
  const key = (namespace: string, name: string) => `${namespace}/${name}`;
  /** Pods stopped on purpose with the operator (stopAll), kept until created again: they resume. */
  const stopped = new Map<string, PodRecord>();
  const save = () => {
    savePodRecords(file, [...records.values(), ...stopped.values()]);
    if (opts.prometheusTargetsFile) savePrometheusTargets(opts.prometheusTargetsFile, [...records.values()]);
  };
  let closed = false;
  // The operator's key, kept beside pods.json: an operator that restarts derives the same credentials.
  const credentials = agentCredentials(loadAgentKey(path.join(opts.dataDir, "agent-key")));
  /** Each listed pod's agent URL → its credential. Ports are reused: a new pod's entry replaces the old. */
  const credentialByUrl = new Map<string, string>();
  const remember = (record: PodRecord) =>
    credentialByUrl.set(
      toClusterPod(record).agentUrl ?? "",
      credentials.credentialFor({ namespace: record.namespace, name: record.name }),
    );

  const forget = (record: PodRecord) => {
    const url = toClusterPod(record).agentUrl ?? "";
    const own = credentials.credentialFor({ namespace: record.namespace, name: record.name });
    if (credentialByUrl.get(url) === own) credentialByUrl.delete(url);
  };

  const finish = (record: PodRecord, exit: { code: number | null; signal: string | null } | null) => {
    // A pod removed (or dropped by stopAll) is no longer this manager's: its agent's exit changes nothing.
    if (records.get(key(record.namespace, record.name)) !== record) return;
    if (record.phase !== "Running" && record.phase !== "Pending") return;
    record.phase = exit?.code === 0 ? "Succeeded" : "Failed";
    record.finishedAt = Date.now();
    // Whatever of it is left (workers the agent did not take with it) ends with its user's lease.
    identities.releasePod(record);
    save();
    if (exit && exit.code !== 0 && record.log) {
      const tail = lastLines(record.log, { from: record.logFrom });
      opts.onExit?.({ namespace: record.namespace, job: record.job, pod: record.name, ...exit, tail });
    }
    opts.onChange({ namespace: record.namespace, name: record.job });
  };

  // Re-adopt agents that outlived a previous operator process (killed, say); the rest are gone. Pods
  // stopped on purpose by the previous one's clean stop are kept aside to resume.
  for (const record of loadPodRecords(file)) {
    if (record.stoppedOnPurpose) {
      stopped.set(key(record.namespace, record.name), record);
      continue;
    }
    records.set(key(record.namespace, record.name), record);
    remember(record);
    if (record.phase !== "Running") continue;
    if (!isAlive(record.pid)) finish(record, null);
    else if (!identities.adopt(record)) {
      // Its user was taken over meanwhile (the lease looked abandoned), so it is not this pod's any more.
      killTree(record.pid, "SIGKILL");
      finish(record, null);
    }
  }
  const watcher = setInterval(() => {
    for (const record of records.values()) {
      if (
        record.phase === "Running" &&
        !handles.has(key(record.namespace, record.name)) &&
        !isAlive(record.pid)
      ) {
        finish(record, { code: null, signal: null });
      }
    }
  }, 200);
  watcher.unref();

  const kill = (record: PodRecord) => {
    killTree(record.pid, "SIGKILL");
    handles.delete(key(record.namespace, record.name));
  };

  /** The pod's user and its job's group leased and its files theirs; released again if the operator stopped meanwhile. */
  const launchAs = async (input: {
    job: Parameters<PodManager["create"]>[0];
    podName: string;
    podDir: string;
    command: AgentCommand;
  }) => {
    const { job } = input.job;
    const runAs = await identities.launch({
      root: opts.dataDir,
      podDir: input.podDir,
      namespace: job.ref.namespace,
      pod: input.podName,
      job: { name: job.ref.name, uid: job.uid, ...input.job.jobFiles },
      command: input.command,
    });
    if (closed) {
      identities.releasePod({ namespace: job.ref.namespace, name: input.podName, runAs: runAs.identity });
      throw new AppError("UNAVAILABLE", "the operator is stopping: no pod is started");
    }
    return runAs;
  };

  // Our agent asks every caller for the pod's credential, given here in its environment: a command line
  // is readable by every user of the machine (`ps`), a process's environment only by its own user.
  // hyperpodrun has no such check, and its workers would only inherit it.
  const credentialEnv = (command: AgentCommand, namespace: string, name: string): Record<string, string> =>
    command.command === process.execPath
      ? { [AGENT_CREDENTIAL_ENV]: credentials.credentialFor({ namespace, name }) }
      : {};

  return {
    async create(input) {
      if (closed) throw new AppError("UNAVAILABLE", "the operator is stopping: no pod is started");
      const argv = containerArgv(templateContainers(input.job, input.replicaSpec));
      const podName = `${input.job.ref.name}-${input.replicaSpec}-${input.index}`;
      const podDir = podDirOf(path.join(opts.dataDir, "pods"), {
        namespace: input.job.ref.namespace,
        pod: podName,
        run: { job: input.job.ref.name, uid: input.job.uid },
      });
      mkdirSync(podDir, { recursive: true });
      const port = await findFreePort();
      const agentBin = await localAgentScript(opts.repoRoot);
      const built = localAgentCommand({ argv, agentBin, port, logDir: path.join(podDir, "logs") });
      if (!built.ok) throw new AppError("INVALID", built.reason);
      const runAs = await launchAs({ job: input, podName, podDir, command: built.command });
      // Root's own file (0600): the pod writes it through the descriptor it inherits, and cannot read or
      // replace it (its directory is root's), so the operator reading it back never follows a pod's link.
      const log = openSync(path.join(podDir, "agent.log"), "a", 0o600);
      // This attempt's output starts here: the exit's last lines are this attempt's, not earlier ones'.
      const logFrom = fstatSync(log).size;
      const child = spawn(runAs.command.command, runAs.command.args, {
        cwd: opts.repoRoot,
        detached: true,
        stdio: ["ignore", log, log],
        ...runAs.ids,
        env: localPodEnv({
          host: { ...hostEnvironment(), ...runAs.host },
          job: input.job.object,
          containers: templateContainers(input.job, input.replicaSpec),
          extra: { ...input.env, ...credentialEnv(built.command, input.job.ref.namespace, podName) },
        }),
      });
      if (child.pid === undefined) {
        identities.releasePod({ namespace: input.job.ref.namespace, name: podName, runAs: runAs.identity });
        throw new AppError("UNAVAILABLE", `could not start the agent of pod ${podName}`);
      }
      lowerPriority(child.pid, POD_NICE);
      const record: PodRecord = {
        name: podName,
        namespace: input.job.ref.namespace,
        job: input.job.ref.name,
        replicaSpec: input.replicaSpec,
        index: input.index,
        node: input.node,
        gpus: input.gpus,
        pid: child.pid,
        port,
        createdAt: Date.now(),
        finishedAt: null,
        phase: "Running",
        log: path.join(podDir, "agent.log"),
        logFrom,
        ...(runAs.identity ? { runAs: runAs.identity } : {}),
      };
      records.set(key(record.namespace, podName), record);
      remember(record);
      stopped.delete(key(record.namespace, podName));
      handles.set(key(record.namespace, podName), child);
      child.on("exit", (code, signal) => finish(record, { code, signal }));
      save();
      return toClusterPod(record);
    },
    remove(ref, podName) {
      if (stopped.delete(key(ref.namespace, podName))) save();
      const record = records.get(key(ref.namespace, podName));
      if (!record) return;
      kill(record);
      identities.releasePod(record);
      records.delete(key(ref.namespace, podName));
      forget(record);
      save();
      opts.onChange(ref);
    },
    list(ref) {
      return [...records.values()]
        .filter((record) => record.namespace === ref.namespace && record.job === ref.name)
        .map(toClusterPod);
    },
    all: () => [...records.values()].map(toClusterPod),
    pidOf: (namespace, podName) => records.get(key(namespace, podName))?.pid ?? null,
    runAsOf: (namespace, podName) => records.get(key(namespace, podName))?.runAs ?? null,
    releaseJob: (job) => identities.releaseJob(job),
    credentialFor: (agentUrl) => credentialByUrl.get(agentUrl) ?? null,
    gpusInUse() {
      const used = new Map<string, number>();
      for (const record of records.values()) {
        if (record.phase === "Running" || record.phase === "Pending") {
          used.set(record.node, (used.get(record.node) ?? 0) + record.gpus);
        }
      }
      return used;
    },
    killNode(node) {
      let killed = 0;
      for (const record of records.values()) {
        if (record.node !== node || record.phase !== "Running") continue;
        kill(record);
        finish(record, null);
        killed += 1;
      }
      return killed;
    },
    /** The operator's clean stop: every pod is killed and kept as stopped on purpose, to resume next time. */
    stopAll() {
      closed = true;
      for (const record of records.values()) {
        kill(record);
        identities.releasePod(record);
        if (record.phase === "Running" || record.phase === "Pending") {
          stopped.set(key(record.namespace, record.name), { ...record, stoppedOnPurpose: true });
        }
      }
      records.clear();
      credentialByUrl.clear();
      save();
    },
    stoppedPods: (ref) =>
      [...stopped.values()]
        .filter((record) => record.namespace === ref.namespace && record.job === ref.name)
        .map((record) => record.name),
    dispose: () => clearInterval(watcher),
  };
}
