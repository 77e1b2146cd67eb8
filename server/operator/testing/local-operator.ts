import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createLocalBackend, type LocalBackend } from "@/server/cluster/local/backend";
import { descendants, isAlive } from "@/server/cluster/local/process-tree";
import type { JobRef } from "@/server/cluster/types";
import { jobKey } from "@/server/cluster/types";
import { createDb, type Db } from "@/server/db/client";
import { createLogger } from "@/server/log";
import { type Controller, createController } from "@/server/operator/controller";
import type { LiveJob } from "@/server/operator/live-state";
import { createOperatorDeps, type OperatorDeps } from "@/server/operator/reconcilers/deps";
import { submitOrThrow, waitFor } from "./helpers";

/**
 * A real operator with the local back end, in this process, for integration tests and benchmarks: real
 * agent processes, real workers, real PostgreSQL. Nothing here is a stand-in.
 */
export type LocalOperator = {
  deps: OperatorDeps;
  backend: LocalBackend;
  controller: Controller;
  db: Db;
  submit(yaml: string): Promise<JobRef>;
  live(ref: JobRef): LiveJob | undefined;
  waitFor<T>(
    what: string,
    probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
    timeoutMs?: number,
  ): Promise<T>;
  /** Every process the local pods ever had (agents and their workers), for orphan checks. */
  seenPids(): number[];
  stop(): Promise<void>;
};

const REPO_ROOT = path.resolve(import.meta.dirname, "../../..");

export async function startLocalOperator(opts: {
  databaseUrl: string;
  nodes: number;
  gpusPerNode: number;
  pollMs?: number;
  agentTimeoutMs?: number;
  podStartGraceMs?: number;
  fetch?: typeof fetch;
}): Promise<LocalOperator> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "rebound-operator-"));
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
  const deps = createOperatorDeps({
    backend,
    db,
    log: createLogger({ service: "operator-under-test" }),
    fetch: opts.fetch,
    config: {
      pollMs: opts.pollMs ?? 100,
      agentTimeoutMs: opts.agentTimeoutMs ?? 3000,
      podStartGraceMs: opts.podStartGraceMs ?? 30_000,
      stopTimeoutSeconds: 5,
    },
  });
  const controller = createController(deps, { workers: 4, resyncMs: 5000 });
  await backend.start();
  await controller.start();
  const pids = new Set<number>();
  const sampler = setInterval(() => {
    for (const pod of backend.pods.all()) {
      const pid = backend.pods.pidOf(pod.namespace, pod.name);
      if (pid === null) continue;
      pids.add(pid);
      for (const child of descendants(pid)) pids.add(child);
    }
  }, 100);

  return {
    deps,
    backend,
    controller,
    db,
    submit: (yaml) => submitOrThrow(backend, yaml),
    live: (ref) => deps.live.get(jobKey(ref)),
    waitFor,
    seenPids: () => [...pids],
    async stop() {
      clearInterval(sampler);
      await controller.stop();
      await backend.stop();
      backend.pods.stopAll();
      await db.$disconnect();
      const deadline = Date.now() + 5000;
      while ([...pids].some(isAlive) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
