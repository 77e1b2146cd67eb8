import { chmod, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { rssMb } from "@/bench/chaos/stack";
import { integerReader, stringOptions } from "@/bench/lib/flags";
import { killLeftoverPods, startOperator } from "@/scripts/lib/operator-process";
import { stopChild } from "@/scripts/lib/processes";
import { createJobStore } from "@/server/cluster/local/job-store";
import { parseJobKey } from "@/server/cluster/types";
import { createDb, type Db } from "@/server/db/client";
import { startEmbeddedPostgres } from "@/server/db/embedded";
import { migrate } from "@/server/db/migrate";
import { findFreePort } from "@/server/http/free-port";
import { measureAdmissions } from "./admissions";
import { operatorApi } from "./api";
import { insertQueued, installTriggers, jobOf, listen, namespaceOf, seedTeams } from "./setup";
import { measureWhyPending } from "./why-pending";

/**
 * `npm run bench:governance [-- --jobs 10000 --teams 50 --holders 4 --reps 100]`: task governance on the
 * local back end at scale. A real operator process (local back end, 2 virtual nodes × 4 GPUs) and a fresh
 * embedded PostgreSQL; `holders` running jobs hold all 8 GPUs, then `jobs` queued jobs over `teams` teams
 * are stored as LocalJob rows through the job store (they stay Pending: no processes). Each repetition
 * deletes one admitted job through the operator's API and times, on Postgres's clock, from the job's row
 * being removed (its capacity free) to the next job's status recording its admission
 * (`admission_decision_p99_ms`, goal < 50 ms), and from the API call to that (`free_to_admitted_p99_ms`);
 * between repetitions the admitted job's pod reaches Running (admissions.ts). "Why pending" as the console
 * answers it, the operator answering from its admission through its API (`console_why_pending_p99_ms`, goal
 * < 50 ms), and as it did before: the domain's whyPending over the snapshot of the operator's live jobs, the
 * answer alone (`why_pending_p99_ms`) and with fetching and building the snapshot
 * (`why_pending_with_snapshot_p99_ms`). Ends with `BENCH governance {json}`.
 */
const say = (line: string) => console.log(`[governance] ${line}`);
let interrupted = false;
const checkInterrupted = () => {
  if (interrupted) throw new Error("interrupted");
};

const DEFAULTS = { jobs: "10000", teams: "50", holders: "4", reps: "100" } as const;

function parseConfig(argv: string[]) {
  const { values } = parseArgs({ args: argv, options: stringOptions(DEFAULTS), strict: true });
  const int = integerReader(DEFAULTS, values);
  const config = {
    jobs: int("jobs", 1),
    teams: int("teams", 4),
    holders: int("holders", 1),
    reps: int("reps", 20),
  };
  // Every repetition admits a queued job: with no more jobs than repetitions, none is left to ask "why pending".
  if (config.jobs <= config.reps) throw new Error("--jobs: expected more queued jobs than --reps");
  return config;
}

async function count(db: Db, where: string): Promise<number> {
  const rows = await db.$queryRawUnsafe<Array<{ n: bigint }>>(
    `SELECT count(*) AS n FROM "LocalJob" WHERE ${where}`,
  );
  return Number(rows[0]?.n ?? 0);
}

/** Where the stored jobs stand, for a timeout: how many in each phase and admission state (with its reason). */
async function standings(db: Db): Promise<string> {
  const rows = await db.$queryRawUnsafe<Array<{ phase: string | null; admission: string | null; n: bigint }>>(
    `SELECT status->'rebound'->>'phase' AS phase,
            concat_ws(' ', status->'rebound'->'admission'->>'state', status->'rebound'->'admission'->>'reason') AS admission,
            count(*) AS n
       FROM "LocalJob" GROUP BY 1, 2 ORDER BY 3 DESC`,
  );
  const counts = rows.map(
    (row) => `${row.n} ${row.phase ?? "no phase"} (${row.admission || "no admission"})`,
  );
  return counts.length === 0 ? "no job stored" : counts.join(", ");
}

/** Waits for `what`; on a timeout, says where the stored jobs stand (their phases and admissions). */
async function until(db: Db, what: string, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    checkInterrupted();
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; jobs: ${await standings(db)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

const ADMITTED = `status->'rebound'->'admission'->>'state' = 'Admitted'`;
const PENDING = `status->'rebound'->>'phase' = 'Pending'`;

async function run(dir: string, config: ReturnType<typeof parseConfig>) {
  const database = await startEmbeddedPostgres({ dataDir: dir });
  const dataDir = path.join(dir, "data");
  let operator: Awaited<ReturnType<typeof startOperator>> | null = null;
  const db = createDb(database.url);
  try {
    await migrate(database.url);
    await seedTeams(db, config.teams);
    await installTriggers(db);
    const store = createJobStore(db);
    // Arrival order is admission order (fair share off): the holders, stored first, are admitted first.
    const holders = Array.from({ length: config.holders }, (_, i) => `${namespaceOf(i)}/holder-${i}`);
    for (let i = 0; i < config.holders; i += 1) await store.submit(jobOf(`holder-${i}`, namespaceOf(i)));
    const inserting = performance.now();
    await insertQueued(db, { count: config.jobs, teams: config.teams });
    say(
      `stored ${config.jobs} queued jobs over ${config.teams} teams in ${Math.round(performance.now() - inserting)} ms`,
    );
    // The operator child's virtual cluster (it inherits this environment): 2 nodes × 4 GPUs.
    Object.assign(process.env, { REBOUND_LOCAL_NODES: "2", REBOUND_LOCAL_GPUS_PER_NODE: "4" });
    const starting = performance.now();
    operator = await startOperator({
      databaseUrl: database.url,
      port: await findFreePort(),
      dataDir,
      logFile: path.join(dir, "operator.log"),
    });
    const api = operatorApi({ url: operator.url, token: operator.token });
    await until(
      db,
      "the holders' admission",
      async () => (await count(db, ADMITTED)) >= config.holders,
      600_000,
    );
    await until(db, "every job Pending", async () => (await count(db, PENDING)) >= config.jobs, 900_000);
    say(
      `operator up, ${config.holders} admitted and ${config.jobs} queued in ${Math.round(performance.now() - starting)} ms`,
    );
    const pid = operator.child.pid ?? 0;
    const rssQueued = await rssMb(pid);
    const listener = await listen(database.url);
    const phaseOf = async (key: string) => {
      const { namespace, name } = parseJobKey(key);
      const rows = await db.$queryRawUnsafe<Array<{ phase: string | null }>>(
        `SELECT status->'rebound'->>'phase' AS phase FROM "LocalJob" WHERE namespace = $1 AND name = $2`,
        namespace,
        name,
      );
      return rows[0]?.phase ?? null;
    };
    const admissions = await measureAdmissions({
      api,
      listener,
      admitted: holders,
      reps: config.reps,
      phaseOf,
      say,
    });
    await listener.close();
    const why = await measureWhyPending({ db, api, samples: 200, fetches: 20 });
    const figures = {
      jobs: config.jobs,
      teams: config.teams,
      ...admissions,
      ...why,
      operator_rss_mb: Math.max(rssQueued, await rssMb(pid)),
    };
    console.log(`BENCH governance ${JSON.stringify(figures)}`);
  } catch (error) {
    // What the operator said last, to tell why (its log goes with the temp dir).
    const tail = await readFile(path.join(dir, "operator.log"), "utf8").catch(() => "");
    console.error(`operator log (end):\n${tail.split("\n").slice(-15).join("\n")}`);
    throw error;
  } finally {
    if (operator) await stopChild(operator.child, 15_000);
    await killLeftoverPods(dataDir);
    await db.$disconnect();
    await database.stop();
  }
}

async function main() {
  const config = parseConfig(process.argv.slice(2));
  // Ctrl-C (bench/lib/isolated.ts closes the channel): stop here; run()'s clean-up stops what it started.
  process.on("disconnect", () => {
    interrupted = true;
  });
  const dir = await mkdtemp(path.join(tmpdir(), "rebound-governance-"));
  // PostgreSQL's own user and the local pods' unprivileged user must reach their folders inside.
  await chmod(dir, 0o755);
  try {
    await run(dir, config);
  } finally {
    await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 500 });
  }
}

// Exits once done: a handle the bench opened and did not close (a pool, a listener) must not keep it alive.
main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(
      `bench:governance: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    process.exit(1);
  },
);
