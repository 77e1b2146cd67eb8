import pg from "pg";
import { createJobStore } from "@/server/cluster/local/job-store";
import type { Db } from "@/server/db/client";
import { GPU } from "@/server/domain/governance/types";
import type { HyperPodPyTorchJob } from "@/server/domain/job-spec/job-spec.schema";
import { parseJobYaml } from "@/server/domain/job-spec/parse-job";
import { inParallel } from "@/server/in-parallel";
import { demoJobYaml } from "@/server/operator/testing/jobs";

/**
 * The benchmark's cluster: `teams` teams with no guarantee that may each borrow up to 2 GPUs of the idle
 * pool (absolute borrow limit), fair share off (first come, first served: no fair-sharing preemption), so
 * freeing 2 GPUs admits exactly the next job in arrival order and preempts nothing.
 */
export const GPUS_PER_JOB = 2;

export const teamName = (index: number) => `team-${String(index).padStart(2, "0")}`;
export const namespaceOf = (index: number) => `hyperpod-ns-${teamName(index)}`;

export async function seedTeams(db: Db, teams: number): Promise<void> {
  await db.schedulerConfig.upsert({
    where: { id: 1 },
    create: { id: 1, fairShareEnabled: false },
    update: { fairShareEnabled: false },
  });
  for (let i = 0; i < teams; i += 1) {
    await db.team.create({
      data: {
        name: teamName(i),
        displayName: teamName(i),
        namespace: namespaceOf(i),
        quota: {
          create: {
            borrowStrategy: "LendAndBorrow",
            resources: { create: [{ resource: GPU, guaranteed: 0, absoluteBorrowLimit: GPUS_PER_JOB }] },
          },
        },
      },
    });
  }
}

/** A one-pod demo job of GPUS_PER_JOB GPUs; slow steps, so the few that run cost little CPU. */
export function jobOf(name: string, namespace: string): HyperPodPyTorchJob {
  const parsed = parseJobYaml(
    demoJobYaml({
      name,
      namespace,
      nodes: 1,
      ranks: 1,
      gpusPerPod: GPUS_PER_JOB,
      stepMs: 1000,
      hangSeconds: 30,
    }),
  );
  if (!parsed.ok) throw new Error(`bench job: ${JSON.stringify(parsed.errors)}`);
  return parsed.job;
}

/** Stores `count` jobs round-robin over the teams as LocalJob rows, through the local back end's job store. */
export async function insertQueued(db: Db, opts: { count: number; teams: number }): Promise<void> {
  const store = createJobStore(db);
  const indices = Array.from({ length: opts.count }, (_, i) => i);
  await inParallel(indices, 8, async (i) => {
    const result = await store.submit(jobOf(`queued-${i}`, namespaceOf(i % opts.teams)));
    if (!result.ok) throw new Error(`queued-${i}: ${result.reason}`);
  });
}

/**
 * Postgres tells the benchmark, with its own clock, when a job row is removed (its capacity is free: the
 * operator releases it right after) and when a job's status first records the admission Admitted.
 */
export async function installTriggers(db: Db): Promise<void> {
  await db.$executeRawUnsafe(`
    CREATE OR REPLACE FUNCTION bench_governance_notify() RETURNS trigger AS $$
    DECLARE at text := (extract(epoch FROM clock_timestamp()) * 1000)::text;
    BEGIN
      IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('bench_freed', OLD.namespace || '/' || OLD.name || ' ' || at);
        RETURN OLD;
      END IF;
      IF (NEW.status->'rebound'->'admission'->>'state') = 'Admitted'
         AND (OLD.status->'rebound'->'admission'->>'state') IS DISTINCT FROM 'Admitted' THEN
        PERFORM pg_notify('bench_admitted', NEW.namespace || '/' || NEW.name || ' ' || at);
      END IF;
      RETURN NEW;
    END $$ LANGUAGE plpgsql`);
  await db.$executeRawUnsafe(
    `CREATE TRIGGER bench_governance AFTER UPDATE OR DELETE ON "LocalJob" FOR EACH ROW EXECUTE FUNCTION bench_governance_notify()`,
  );
}

export type Notice = { channel: string; key: string; at: number; receivedAt: number };

/** LISTENs to the triggers' channels; `next` waits for the next notice on a channel matching `accept`. */
export async function listen(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const notices: Notice[] = [];
  client.on("notification", (message) => {
    const [key = "", at = "0"] = (message.payload ?? "").split(" ");
    notices.push({ channel: message.channel, key, at: Number(at), receivedAt: performance.now() });
  });
  await client.query("LISTEN bench_freed");
  await client.query("LISTEN bench_admitted");
  return {
    async next(channel: string, accept: (notice: Notice) => boolean, timeoutMs: number): Promise<Notice> {
      const deadline = performance.now() + timeoutMs;
      while (performance.now() < deadline) {
        const index = notices.findIndex((notice) => notice.channel === channel && accept(notice));
        if (index >= 0) return notices.splice(index, 1)[0] as Notice;
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      throw new Error(`no ${channel} notice within ${timeoutMs} ms`);
    },
    close: () => client.end(),
  };
}
