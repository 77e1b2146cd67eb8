import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createLocalBackend, type LocalBackend } from "@/server/cluster/local/backend";
import { isStillAlive, startTimeOf } from "@/server/cluster/local/process-tree";
import { ensureOperatorToken, operatorTokenPath } from "@/server/cluster/local-token";
import type { ClusterJob, JobRef } from "@/server/cluster/types";
import { jobKey } from "@/server/cluster/types";
import { createDb, type Db } from "@/server/db/client";
import { createLogger } from "@/server/log";
import { createLocalAdmission, type LocalAdmission } from "@/server/operator/admission/local";
import type { AgentTransport } from "@/server/operator/agent-transport";
import { type ApiAuth, localTokenAuth } from "@/server/operator/api/authorize";
import { type Controller, createController } from "@/server/operator/controller";
import type { LiveJob } from "@/server/operator/live-state";
import type { OperatorConfig, OperatorDeps } from "@/server/operator/reconcilers/deps";
import { createOperatorDeps } from "@/server/operator/wiring";
import { submitOrThrow, waitFor } from "./helpers";

/**
 * A real operator with the local back end, in this process, for integration tests and benchmarks: real
 * agent processes, real workers, real PostgreSQL. Nothing here is a stand-in. Processes are tracked from
 * what the operator already knows (pod agents, rank pids), not by scanning /proc, so tracking adds no
 * latency to the operator being measured; `stop()` checks they are all gone.
 */
export type LocalOperator = {
  deps: OperatorDeps;
  backend: LocalBackend;
  controller: Controller;
  /** Task governance's local admission (as main.ts runs it); null when started without. */
  admission: LocalAdmission | null;
  db: Db;
  /** The API's credential (created in the operator's data dir, as main.ts does) and its check. */
  token: string;
  auth: ApiAuth;
  dataDir: string;
  submit(yaml: string): Promise<JobRef>;
  live(ref: JobRef): LiveJob | undefined;
  waitFor<T>(
    what: string,
    probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
    timeoutMs?: number,
  ): Promise<T>;
  /** waitFor about one job: on a timeout the error also tells the job's phase and its last condition. */
  waitForJob<T>(
    ref: JobRef,
    what: string,
    probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
    timeoutMs?: number,
  ): Promise<T>;
  /** Every agent and worker process the local pods ever had, for orphan checks. */
  seenPids(): number[];
  /** Those of them still running (the same processes: a reused pid does not count). */
  alivePids(): number[];
  /** Stops everything; throws if any agent or worker process outlives it. */
  stop(): Promise<void>;
};

const REPO_ROOT = path.resolve(import.meta.dirname, "../../..");

/** Where a job stands, for an error: its phase, its last true condition's reason and message. */
export function jobStory(ref: JobRef, job: ClusterJob | null, live: LiveJob | undefined): string {
  if (!job) return `${ref.namespace}/${ref.name} does not exist`;
  const conditions = job.status.conditions ?? [];
  const last =
    [...conditions].reverse().find((condition) => condition.status === "True") ?? conditions.at(-1);
  const said = last
    ? `${last.type}=${last.status} ${last.reason ?? ""}: ${last.message ?? ""}`
    : "no condition";
  return `${ref.namespace}/${ref.name} is ${live?.phase ?? "not seen by the operator"} (${said.trim()})`;
}

/** Every agent and rank process seen, by pid and start time (pids are reused over a long run). */
function trackPids(deps: OperatorDeps, backend: LocalBackend) {
  const seen = new Map<number, string | null>();
  const note = (pid: number | null) => {
    if (pid !== null && !seen.has(pid)) seen.set(pid, startTimeOf(pid));
  };
  const sample = () => {
    for (const pod of backend.pods.all()) note(backend.pods.pidOf(pod.namespace, pod.name));
    const ranks = deps.live.list().flatMap((job) => job.pods.flatMap((pod) => pod.ranks));
    for (const rank of ranks) note(rank.pid);
  };
  const timer = setInterval(sample, 100);
  const alive = () =>
    [...seen].filter(([pid, startTime]) => isStillAlive({ pid, startTime })).map(([pid]) => pid);
  return { sample, seen, alive, stop: () => clearInterval(timer) };
}

export async function startLocalOperator(opts: {
  databaseUrl: string;
  nodes: number;
  gpusPerNode: number;
  config?: Partial<OperatorConfig>;
  transport?: AgentTransport;
  service?: string;
  /** Run the local admission (task governance) as main.ts does; default true. */
  governance?: boolean;
}): Promise<LocalOperator> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "rebound-operator-"));
  // As a data dir made by `npm start` (0755): local pods, run as an unprivileged user under root, pass
  // through it to their own directories (mkdtemp makes it 0700). Its secrets keep their own modes.
  await chmod(dataDir, 0o711);
  const db = createDb(opts.databaseUrl);
  const backend = await createLocalBackend({
    db,
    dataDir,
    repoRoot: REPO_ROOT,
    nodeCount: opts.nodes,
    gpusPerNode: opts.gpusPerNode,
    nodeRebootMs: 0,
    jobPollMs: 500,
  });
  const log = createLogger({ service: opts.service ?? "operator-under-test" });
  const admission =
    opts.governance === false
      ? null
      : await createLocalAdmission({ db, backend, log: log.child({ component: "admission" }) });
  const deps = createOperatorDeps({
    backend,
    db,
    log,
    transport: opts.transport,
    config: opts.config,
    admission,
  });
  const controller = createController(deps, { workers: 4, resyncMs: 30_000 });
  await backend.start();
  await controller.start();
  const tracker = trackPids(deps, backend);
  const token = ensureOperatorToken(dataDir);

  return {
    deps,
    backend,
    controller,
    admission,
    db,
    token,
    auth: localTokenAuth({ token, tokenFile: operatorTokenPath(dataDir) }),
    dataDir,
    submit: (yaml) => submitOrThrow(backend, yaml),
    live: (ref) => deps.live.get(jobKey(ref)),
    waitFor,
    waitForJob: (ref, what, probe, timeoutMs) =>
      waitFor(what, probe, timeoutMs).catch(async (error: unknown) => {
        const job = await backend.getJob(ref);
        throw new Error(`${String(error)}; ${jobStory(ref, job, deps.live.get(jobKey(ref)))}`);
      }),
    seenPids: () => {
      tracker.sample();
      return [...tracker.seen.keys()];
    },
    alivePids: () => tracker.alive(),
    async stop() {
      tracker.sample();
      tracker.stop();
      deps.shadow?.stop();
      backend.pods.stopAll();
      try {
        await controller.stop();
        await admission?.dispose();
        await backend.stop();
        backend.pods.stopAll();
        await db.$disconnect();
      } finally {
        const deadline = Date.now() + 10_000;
        while (tracker.alive().length > 0 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await rm(dataDir, { recursive: true, force: true });
      }
      const left = tracker.alive();
      if (left.length > 0) throw new Error(`processes left running after stop: ${left.join(", ")}`);
    },
  };
}
