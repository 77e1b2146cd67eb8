import { execFile } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ClusterBackend, JobRef } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import type { HyperPodPyTorchJob } from "@/server/domain/job-spec/job-spec.schema";
import { parseJobYaml } from "@/server/domain/job-spec/parse-job";
import { DEFAULT_NODE_SIGNALS } from "@/server/domain/node-health/default-signals";
import type { NodeSignalTable } from "@/server/domain/node-health/signal-table.schema";
import type { NodeFaultSource } from "@/server/domain/operator-api/contract";
import { findFreePort } from "@/server/http/free-port";
import { createReservations, pickNode } from "../placement";
import { createEventLog } from "./events";
import { type JobChanges, listenForJobChanges } from "./job-changes";
import { createJobStore, type JobStore, type SubmitResult } from "./job-store";
import { retainRunLogs } from "./log-retention";
import { injectableSources } from "./node-facts";
import { createNodePool, type NodePool } from "./nodes";
import { describeExit } from "./pod-exit";
import { readPodLog } from "./pod-logs";
import { createPodManager, type PodManager } from "./pods";
import { readRankOutput } from "./rank-output";

export type LocalFaultKind = "crash" | "hang" | "nan" | "slow";

/** The local back end plus what only it can do: submit jobs, fail nodes, plant trainer faults. */
export type LocalBackend = ClusterBackend & {
  readonly kind: "local";
  readonly jobs: JobStore;
  readonly nodes: NodePool;
  readonly pods: PodManager;
  /** A Prometheus file_sd targets file listing every running agent's /metrics. */
  readonly prometheusTargetsFile: string;
  /** Validates and stores a job (YAML text), then wakes the operator for it. */
  submitYaml(text: string): Promise<SubmitResult>;
  /** Stores a job already parsed (parseJobYaml), then wakes the operator for it. */
  submit(job: HyperPodPyTorchJob): Promise<SubmitResult>;
  /**
   * A node fault said by `source` (default HyperPod's label: the node fails and its pods die, as a reboot
   * does); any other source only sets its fact (node-facts.ts) and the operator moves the pods as the
   * table says. Either clears after nodeRebootMs.
   */
  failNode(node: string, source?: NodeFaultSource): void;
  /** The sources failNode takes under the table in force (a table without a source's rows cannot see it). */
  nodeFaultSources(): NodeFaultSource[];
  /** Writes the job's trainer control file (REBOUND_FAULT_FILE) for one rank. */
  plantTrainerFault(ref: JobRef, fault: { kind: LocalFaultKind; rank: number | null }): void;
  clearTrainerFault(ref: JobRef): void;
};

export type LocalBackendOptions = {
  db: Db;
  dataDir: string;
  repoRoot: string;
  nodeCount: number;
  gpusPerNode: number;
  nodeRebootMs: number;
  /** How often job changes are looked for while Postgres's notices are not heard (default 1 s). */
  jobPollMs?: number;
  /** Postgres's URL, to hear of job changes as they commit (job-changes.ts); without it, polling only. */
  databaseUrl?: string;
  /** The node-signal table in force, read at each node change; default the shipped one. */
  nodeSignals?: () => NodeSignalTable;
};

/** While the notices are heard, the whole table is still compared this often, as a safety net. */
const SAFETY_POLL_MS = 30_000;

async function countRealGpus(): Promise<number> {
  return new Promise((resolve) => {
    execFile("nvidia-smi", ["-L"], { timeout: 5000 }, (error, stdout) => {
      resolve(error ? 0 : stdout.split("\n").filter((line) => line.startsWith("GPU ")).length);
    });
  });
}

export const PROMETHEUS_TARGETS = "prometheus-targets.json";

export async function createLocalBackend(opts: LocalBackendOptions): Promise<LocalBackend> {
  const listeners = new Set<(ref: JobRef | null) => void>();
  const emit = (ref: JobRef | null) => {
    for (const listener of listeners) listener(ref);
  };
  const localDir = path.join(opts.dataDir, "local");
  const jobDir = (ref: JobRef) => path.join(localDir, "jobs", ref.namespace, ref.name);
  const faultFile = (ref: JobRef) => path.join(jobDir(ref), "fault.json");
  const jobs = createJobStore(opts.db);
  const events = createEventLog({ db: opts.db, jobs });
  const podsDir = path.join(localDir, "pods");
  const nodes = createNodePool({
    count: opts.nodeCount,
    gpusPerNode: opts.gpusPerNode,
    realGpus: await countRealGpus(),
    onChange: () => emit(null),
    nodeSignals: opts.nodeSignals,
  });
  const pods = createPodManager({
    dataDir: localDir,
    repoRoot: opts.repoRoot,
    onChange: emit,
    // An agent that exits on its own says why (exit code, last lines of its output) within its exit.
    onExit: (exit) =>
      void events
        .record(
          { namespace: exit.namespace, name: exit.job },
          { type: "Warning", reason: "AgentExited", message: describeExit(exit) },
        )
        .catch(() => undefined),
    // Point a real Prometheus's file_sd_configs here to scrape every agent (README, Metrics).
    prometheusTargetsFile: path.join(localDir, PROMETHEUS_TARGETS),
  });
  const reservations = createReservations(() => pods.gpusInUse());
  let poller: NodeJS.Timeout | undefined;
  let seen = new Map<string, string>();
  let changes: JobChanges | null = null;
  let listening = false;
  let stopped = false;

  const pollJobs = async () => {
    const now = await jobs.fingerprints();
    for (const [key, print] of now) {
      if (seen.get(key) !== print)
        emit({ namespace: key.split("/")[0] ?? "", name: key.split("/")[1] ?? "" });
    }
    seen = now;
  };

  const submit = async (job: HyperPodPyTorchJob): Promise<SubmitResult> => {
    const result = await jobs.submit(job);
    if (result.ok) {
      seen.set(`${result.job.ref.namespace}/${result.job.ref.name}`, `${result.job.generation}:`);
      emit(result.job.ref);
    }
    return result;
  };

  return {
    kind: "local",
    prometheusTargetsFile: path.join(localDir, PROMETHEUS_TARGETS),
    jobs,
    nodes,
    pods,
    agentCredential: (agentUrl) => pods.credentialFor(agentUrl),
    async start() {
      seen = await jobs.fingerprints();
      const poll = () => {
        poller = setTimeout(
          () =>
            void pollJobs()
              .catch(() => undefined)
              .finally(() => stopped || poll()),
          listening ? SAFETY_POLL_MS : (opts.jobPollMs ?? 1000),
        );
      };
      poll();
      if (opts.databaseUrl)
        changes = listenForJobChanges({
          url: opts.databaseUrl,
          onChange: emit,
          onListening: (now) => {
            listening = now;
            // Heard again after a gap (or for the first time): what changed meanwhile is looked for now.
            if (now) void pollJobs().catch(() => undefined);
          },
        });
    },
    async stop() {
      stopped = true;
      clearTimeout(poller);
      await changes?.stop();
      nodes.dispose();
      pods.dispose();
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    listJobs: () => jobs.list(),
    listJobRefs: () => jobs.refs(),
    getJob: (ref) => jobs.get(ref),
    updateJobStatus: (ref, status) => jobs.updateStatus(ref, status),
    async setSuspended(ref, suspend) {
      const found = await jobs.setSuspended(ref, suspend);
      emit(ref);
      return found;
    },
    async updateJobObject(ref, update) {
      const result = await jobs.updateObject(ref, update);
      if (result.ok) emit(ref);
      return result;
    },
    podLogs: async (ref, pod, tailLines) =>
      readPodLog({ podsDir, ref, pod, uid: (await jobs.get(ref))?.uid, tailLines }),
    // The agent's own record of the attempt (arrival times beside each rank's files): `since` is not needed.
    rankOutput: async (ref, pod, read) =>
      readRankOutput({ podsDir, ref, pod, uid: (await jobs.get(ref))?.uid, localRank: read.localRank }),
    async requestDeletion(ref) {
      await jobs.requestDeletion(ref);
      emit(ref);
    },
    // The job's files go with it; its logs stay as a past run's, within log-retention.ts's bound. Its
    // events stay in Postgres under its uid (the past run's), pruned by server/services/job-events.
    async finalizeDeletion(ref) {
      const job = await jobs.get(ref);
      // Its files first, its row last: once the row is gone the job is, and the operator frees its
      // capacity at once (a queued job's admission is not kept waiting by a clean-up of files).
      rmSync(jobDir(ref), { recursive: true, force: true });
      if (job) {
        pods.releaseJob({ namespace: ref.namespace, name: ref.name, uid: job.uid });
        retainRunLogs(podsDir, { namespace: ref.namespace, run: { job: ref.name, uid: job.uid } });
      }
      await jobs.remove(ref);
    },
    listPods: async (ref) => pods.list(ref),
    createPod(input) {
      const choose = (used: ReadonlyMap<string, number>) =>
        pickNode({
          nodes: nodes.list(),
          used,
          gpus: input.gpus,
          avoid: input.avoidNodes,
          prefer: input.preferNode,
        });
      return reservations.pick(choose, input.gpus, (node) => {
        const dir = jobDir(input.job.ref);
        // Made here, given to the job's group by the pod manager (its pods, and only they, use them).
        mkdirSync(path.join(dir, "checkpoints"), { recursive: true });
        const gpus = nodes.gpuIndices(node);
        return pods.create({
          job: input.job,
          replicaSpec: input.replicaSpec,
          index: input.index,
          node,
          gpus: input.gpus,
          env: {
            REBOUND_POD_NAME: `${input.job.ref.name}-${input.replicaSpec}-${input.index}`,
            REBOUND_NODE_NAME: node,
            REBOUND_CHECKPOINT_DIR: path.join(dir, "checkpoints"),
            REBOUND_FAULT_FILE: faultFile(input.job.ref),
            ...(gpus.length > 0 ? { CUDA_VISIBLE_DEVICES: gpus.join(",") } : {}),
          },
          jobFiles: { dir, shared: [path.join(dir, "checkpoints")] },
        });
      });
    },
    deletePod: async (ref, podName) => pods.remove(ref, podName),
    listNodes: async () => nodes.list(),
    recordEvent: (ref, event) => events.record(ref, event),
    listEvents: (ref) => events.list(ref),
    // Every local pod shares this machine's loopback; each attempt gets a fresh free port.
    rendezvous: async () => ({ addr: "127.0.0.1", port: String(await findFreePort()) }),
    beforeRestart: (ref) => rmSync(faultFile(ref), { force: true }),
    stoppedPods: (ref) => pods.stoppedPods(ref),
    async submitYaml(text) {
      const parsed = parseJobYaml(text);
      if (!parsed.ok) return { ok: false, reason: "invalid", errors: parsed.errors };
      return submit(parsed.job);
    },
    submit,
    failNode(node, source = "hyperpod") {
      if (source !== "hyperpod") return nodes.signal(node, source, { clearAfterMs: opts.nodeRebootMs });
      nodes.fail(node, { rebootAfterMs: opts.nodeRebootMs });
      pods.killNode(node);
    },
    nodeFaultSources: () => injectableSources(opts.nodeSignals?.() ?? DEFAULT_NODE_SIGNALS),
    plantTrainerFault(ref, fault) {
      mkdirSync(jobDir(ref), { recursive: true });
      const id = `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
      // Root's; its pods read it through the job's directory, which only the job's group enters (pods.ts).
      writeFileSync(faultFile(ref), JSON.stringify({ ...fault, id, at: Date.now() }), { mode: 0o644 });
    },
    clearTrainerFault: (ref) => rmSync(faultFile(ref), { force: true }),
  };
}
