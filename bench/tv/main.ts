import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { buildConsoleIfNeeded } from "@/scripts/lib/next-build";
import { DEMO_PASSWORD } from "@/server/db/seed";
import type { TvView } from "@/server/domain/access/share";
import { SHARE_HEADER } from "@/server/services/share-tokens/grants";
import { type ConsoleProcess, startConsoleProcess } from "../console/console-process";
import { parseConfig } from "../k8s/config";
import {
  type BenchEnvironment,
  createLifecycle,
  type Lifecycle,
  NAMESPACE,
  openEnvironment,
} from "../k8s/environment";
import { JOB_NAME, startJob } from "../k8s/job";
import { sampleProc, watchProc } from "../k8s/proc";
import { exitWhenDone } from "../lib/isolated";
import { type ChangeKind, changeMaker, type MadeChange } from "./changes";
import { parseTvConfig } from "./config";
import { tvFrameReader, tvFrameTarget } from "./frames";
import { type ConsoleSession, signIn } from "./http";
import { report } from "./report";
import { measureTab, type TabResult } from "./tab";
import { openViewers, type ViewerPool } from "./viewers";

/**
 * 200 TV viewers on one console process (issue 13), run by `npm run bench:tv`: the bench:k8s environment with
 * a 2,048-rank job whose stand-in ranks step at 1 Hz, the console as `npm start` serves it, a share token made
 * by the cluster admin through shareTokens.create, and --viewers SSE subscriptions to `tv.frame` (jobs and
 * cluster views) carrying the token. Changes are made one at a time (bench/tv/changes.ts) and timed on every
 * viewer that shows them; meanwhile one Chromium tab on /tv/jobs is measured for --tab-minutes. Reports the
 * update delay, the console's RSS and CPU (/proc), frames per viewer per second, the viewers still connected
 * (a dropped one fails the run) and the tab's heap growth: a table, then `BENCH tv <json>`.
 */
const config = parseTvConfig(process.argv.slice(2));
const ranks = config.nodes * 8;
const began = Date.now();
const log = (line: string) =>
  process.stderr.write(`[bench:tv +${((Date.now() - began) / 1000).toFixed(1)}s] ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The viewers' views, split evenly; the token opens these (and the tab's). */
const VIEWS: TvView[] = ["jobs", "cluster"];
const SETTLE_MS = 30_000;
const TEAM = "llm-research";

/** Fails loudly once the console process is gone, with the last lines of its log. */
function consoleGuard(consoleProcess: ConsoleProcess, logFile: string) {
  const check = () => {
    if (sampleProc(consoleProcess.pid) !== null) return;
    const tail = readFileSync(logFile, "utf8").split("\n").slice(-40).join("\n");
    throw new Error(`the console process (pid ${consoleProcess.pid}) died; its last log lines:\n${tail}`);
  };
  return { check, alive: () => sampleProc(consoleProcess.pid) !== null };
}

async function shareToken(admin: ConsoleSession): Promise<string> {
  const created = await admin.mutate<{ kind: string; secret?: string }>("shareTokens.create", {
    label: "bench:tv",
    views: [...new Set([...VIEWS, config.tabView])],
    allTeams: true,
    teamIds: [],
  });
  if (!created.secret) throw new Error(`shareTokens.create gave no secret (${created.kind})`);
  return created.secret;
}

/** Changes one after another, each settled on every viewer, until `count` are made and `until()` is false. */
async function runChanges(input: {
  env: BenchEnvironment;
  admin: ConsoleSession;
  pool: ViewerPool;
  guard: { check(): void };
  keepGoing: () => boolean;
}): Promise<MadeChange[]> {
  const maker = changeMaker({
    ...input,
    reader: tvFrameReader,
    job: { namespace: NAMESPACE, name: JOB_NAME },
    team: TEAM,
    maxFaults: config.maxFaults,
    log,
  });
  const made: MadeChange[] = [];
  try {
    while (made.length < config.changes || input.keepGoing()) {
      input.guard.check();
      const change = await maker.make(config.kinds[made.length % config.kinds.length] as ChangeKind, 120_000);
      const kind = change.change.kind;
      await input.pool.settle(change.change, SETTLE_MS);
      made.push(change);
      const seen = input.pool.viewers.filter((viewer) => viewer.seen.has(change.change.id));
      const delays = seen.map((viewer) => (viewer.seen.get(change.change.id) as number) - change.at);
      log(
        `change ${made.length} (${kind}): seen by ${seen.length} viewers, delay max ${Math.max(0, ...delays)} ms`,
      );
      await sleep(config.changeGapMs);
    }
  } finally {
    await maker.restore().catch((error: unknown) => log(`could not restore the quota: ${String(error)}`));
  }
  return made;
}

async function measure(env: BenchEnvironment, life: Lifecycle, dir: string) {
  const job = await startJob(env, { nodes: config.nodes, gpusPerNode: 8, timeoutMs: 180_000 });
  log(`job Running ${job.runningAt - job.createdAt} ms after it was created`);
  const logFile = path.join(dir, "console.log");
  const consoleProcess = await startConsoleProcess({
    databaseUrl: env.databaseUrl,
    operatorUrl: env.operator.url,
    operatorToken: env.operator.token,
    logFile,
  });
  life.defer("stop the console", () => consoleProcess.stop());
  const guard = consoleGuard(consoleProcess, logFile);
  const proc = watchProc(consoleProcess.pid, 500);
  life.defer("stop sampling the console", () => proc.stop());
  const admin = await signIn(consoleProcess.url, { email: "admin@rebound.local", password: DEMO_PASSWORD });
  const token = await shareToken(admin);
  log(`share token created; opening ${config.viewers} viewers…`);
  const pool = await openViewers({
    baseUrl: consoleProcess.url,
    count: config.viewers,
    views: VIEWS,
    headers: { [SHARE_HEADER]: token },
    target: tvFrameTarget,
    log,
    timeoutMs: 120_000,
  });
  life.defer("close the viewers", () => pool.close());
  const from = proc.now();
  const spanBegan = Date.now();
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  log(`${config.viewers} viewers have their first frame; quiet for ${config.quietMs / 1000} s`);
  // The tab opens now, so that Chromium's start and the page's first render fall in the quiet window, not
  // on a timed change.
  let tabDone = config.tabMinutes === 0;
  const tab: Promise<TabResult | null> =
    config.tabMinutes === 0
      ? Promise.resolve(null)
      : measureTab({
          baseUrl: consoleProcess.url,
          view: config.tabView,
          token,
          minutes: config.tabMinutes,
          log,
          alive: guard.alive,
          screenshotPath: path.resolve("test-results", `bench-tv-${config.tabView}.png`),
        }).finally(() => {
          tabDone = true;
        });
  await sleep(config.quietMs);
  guard.check();
  const changes = await runChanges({ env, admin, pool, guard, keepGoing: () => !tabDone });
  const tabResult = await tab;
  guard.check();
  loopDelay.disable();
  const to = proc.now();
  const { ok } = report({
    ranks,
    viewers: pool.viewers,
    connectedAtEnd: pool.connected(),
    changes,
    spanS: (Date.now() - spanBegan) / 1000,
    console: {
      rssEndMb: to?.rssMb ?? Number.NaN,
      rssPeakMb: Math.max(proc.peakRssMb(), to?.hwmMb ?? 0),
      cpuS: (to?.cpuS ?? 0) - (from?.cpuS ?? 0),
    },
    benchLoopDelayP99Ms: loopDelay.percentile(99) / 1e6,
    loadAverage: loadavg()[0] ?? 0,
    tab: tabResult,
    runS: Math.round((Date.now() - began) / 1000),
  });
  if (!ok) throw new Error("a viewer dropped or no update was timed: the run fails");
}

async function main(): Promise<void> {
  const life = createLifecycle(log);
  process.on("disconnect", () => {
    log("interrupted: stopping every process and removing the temp dirs");
    void life.close().finally(() => process.exit(130));
  });
  try {
    log("building the console if needed…");
    await buildConsoleIfNeeded(log);
    const env = await openEnvironment({
      config: parseConfig(["--nodes", String(config.nodes)]),
      life,
      log,
      agentStepMs: 1000,
    });
    await measure(env, life, path.dirname(env.cluster.kubeconfigPath));
  } finally {
    log("cleaning up");
    await life.close();
  }
}

exitWhenDone(main(), log);
