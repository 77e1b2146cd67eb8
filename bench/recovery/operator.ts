import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createLocalBackend, type LocalBackend } from "@/server/cluster/local/backend";
import { isAlive } from "@/server/cluster/local/process-tree";
import { type JobRef, jobKey } from "@/server/cluster/types";
import { createDb, type Db } from "@/server/db/client";
import { createLogger } from "@/server/log";
import { createController } from "@/server/operator/controller";
import type { LiveJob } from "@/server/operator/live-state";
import { createOperatorDeps, type OperatorDeps } from "@/server/operator/reconcilers/deps";
import { submitOrThrow, waitFor } from "@/server/operator/testing/helpers";

/**
 * The operator under measurement, wired as server/operator/main.ts wires it (its defaults: agent poll
 * 100 ms, agent timeout 3 s, /stop timeout 10 s, 4 workers), in this process, with the local back end.
 * Built here rather than with testing/local-operator.ts because that harness scans /proc every 100 ms
 * for orphan checks; while 64 trainers start, one scan blocks the operator's event loop for up to ~0.4 s,
 * which would be measured as the operator's own latency. Pids are tracked from what the operator already
 * knows (pod agents, rank pids) instead, and checked to be gone at stop.
 */
export type BenchOperator = {
  deps: OperatorDeps;
  backend: LocalBackend;
  db: Db;
  submit(yaml: string): Promise<JobRef>;
  live(ref: JobRef): LiveJob | undefined;
  waitFor<T>(
    what: string,
    probe: () => T | null | false | Promise<T | null | false>,
    timeoutMs?: number,
  ): Promise<T>;
  /** Agent and worker processes ever seen. */
  seenPids(): number[];
  stop(): Promise<void>;
};

const REPO_ROOT = path.resolve(import.meta.dirname, "../..");

function trackPids(deps: OperatorDeps, backend: LocalBackend) {
  const pids = new Set<number>();
  const sample = () => {
    const agents = backend.pods.all().map((pod) => backend.pods.pidOf(pod.namespace, pod.name));
    const ranks = deps.live
      .list()
      .flatMap((job) => job.pods.flatMap((pod) => pod.ranks.map((rank) => rank.pid)));
    for (const pid of [...agents, ...ranks]) if (pid !== null) pids.add(pid);
  };
  const timer = setInterval(sample, 200);
  return { sample, pids, stop: () => clearInterval(timer) };
}

export async function startBenchOperator(opts: {
  databaseUrl: string;
  nodes: number;
  gpusPerNode: number;
  pollMs: number;
}): Promise<BenchOperator> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "rebound-bench-operator-"));
  const db = createDb(opts.databaseUrl);
  const backend = await createLocalBackend({
    db,
    dataDir,
    repoRoot: REPO_ROOT,
    nodeCount: opts.nodes,
    gpusPerNode: opts.gpusPerNode,
    nodeRebootMs: 0,
  });
  const deps = createOperatorDeps({
    backend,
    db,
    log: createLogger({ service: "bench-operator" }),
    config: { pollMs: opts.pollMs },
  });
  const controller = createController(deps, { workers: 4, resyncMs: 30_000 });
  await backend.start();
  await controller.start();
  const tracker = trackPids(deps, backend);
  return {
    deps,
    backend,
    db,
    submit: (yaml) => submitOrThrow(backend, yaml),
    live: (ref) => deps.live.get(jobKey(ref)),
    waitFor,
    seenPids: () => {
      tracker.sample();
      return [...tracker.pids];
    },
    async stop() {
      tracker.sample();
      tracker.stop();
      backend.pods.stopAll();
      try {
        await controller.stop();
        await backend.stop();
        backend.pods.stopAll();
        await db.$disconnect();
      } finally {
        const deadline = Date.now() + 10_000;
        while ([...tracker.pids].some(isAlive) && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 50));
        await rm(dataDir, { recursive: true, force: true });
      }
      const left = [...tracker.pids].filter(isAlive);
      if (left.length > 0) throw new Error(`processes left running after stop: ${left.join(", ")}`);
    },
  };
}
