import type { Db } from "@/server/db/client";
import { teamCapacities } from "@/server/domain/governance";
import type { Logger } from "@/server/log";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";
import { recordCapacity, SAMPLE_INTERVAL_MS, type SamplerMemory } from "./capacity-history";
import { buildGovernanceSnapshot } from "./snapshot";

/**
 * The console's capacity sampler: one per database client in the process, started by the governance router's
 * first call (the console has no other place that runs at start), every SAMPLE_INTERVAL_MS; its timer does
 * not keep the process alive. It stops itself after MAX_FAILURES failed samples in a row (a database gone
 * away); the next governance call starts it again.
 */
const MAX_FAILURES = 5;

export type Sampler = { sampleNow(now?: number): Promise<number>; stop(): void };

const samplers = new WeakMap<Db, Sampler>();
const running = new Set<Sampler>();

export function createCapacitySampler(opts: {
  db: Db;
  cluster: () => Promise<ClusterSource>;
  log: Logger;
  intervalMs?: number;
}): Sampler {
  const memory: SamplerMemory = new Map();
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;
  const sampler: Sampler = {
    async sampleNow(now = Date.now()) {
      const { snapshot } = await buildGovernanceSnapshot({ db: opts.db, source: await opts.cluster(), now });
      return recordCapacity(opts.db, { capacities: teamCapacities(snapshot), now, memory });
    },
    stop() {
      clearInterval(timer);
      running.delete(sampler);
      if (samplers.get(opts.db) === sampler) samplers.delete(opts.db);
    },
  };
  const tick = () =>
    sampler.sampleNow().then(
      () => {
        failures = 0;
      },
      (error: unknown) => {
        failures += 1;
        opts.log.warn("capacity sample failed", { error: String(error), failures });
        if (failures >= MAX_FAILURES) sampler.stop();
      },
    );
  timer = setInterval(tick, opts.intervalMs ?? SAMPLE_INTERVAL_MS);
  timer.unref();
  running.add(sampler);
  void tick();
  return sampler;
}

/** The process's sampler for this database, started if there is none. */
export function ensureCapacitySampler(opts: {
  db: Db;
  cluster: () => Promise<ClusterSource>;
  log: Logger;
}): Sampler {
  const existing = samplers.get(opts.db);
  if (existing) return existing;
  const sampler = createCapacitySampler(opts);
  samplers.set(opts.db, sampler);
  return sampler;
}

/** Stops every sampler of the process (tests, shutdown). */
export function stopCapacitySamplers(): void {
  for (const sampler of [...running]) sampler.stop();
}
