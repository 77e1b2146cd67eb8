import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createDb } from "@/server/db/client";
import { startEmbeddedPostgres } from "@/server/db/embedded";
import { migrate } from "@/server/db/migrate";
import { seedIfEmpty } from "@/server/db/seed";
import { chaosApi } from "./api";
import { parseConfig } from "./config";
import { collectFigures, printFigures } from "./report";
import { DEMO, runScenario, submitDemo } from "./scenario";
import { rssMb, type Stack, startStack } from "./stack";

/**
 * The lifecycle soak (issue 17): the operator as its own process with the local back end, the built
 * console, a fresh embedded PostgreSQL; for `--minutes` random faults into the demo job, three operator
 * restarts (one SIGKILL), two resubmits of the same name and one job that cannot start (scenario.ts). It
 * prints records leaked, duplicated and left pending, retries consumed by operator restarts, the highest
 * restart rate, and operator and console RSS at start and end (report.ts), ending with `BENCH chaos {…}`.
 */
const say = (line: string) => console.log(`[chaos] ${line}`);

async function settle(api: ReturnType<typeof chaosApi>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const demo = (await api.jobs().catch(() => [])).find((job) => job.name === DEMO.name);
    if (demo && demo.recovery === null && demo.phase !== "Recovering") return;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  say(`the demo job was still recovering after ${ms} ms`);
}

async function main() {
  const config = parseConfig(process.argv.slice(2));
  const dir = await mkdtemp(path.join(tmpdir(), "rebound-chaos-"));
  // PostgreSQL's own user and the local pods' unprivileged user must reach their folders inside.
  await chmod(dir, 0o755);
  const database = await startEmbeddedPostgres({ dataDir: dir });
  let stack: Stack | null = null;
  process.on("disconnect", () => void stack?.close().finally(() => process.exit(130)));
  try {
    await migrate(database.url);
    const db = createDb(database.url);
    await seedIfEmpty(db);
    stack = await startStack({
      databaseUrl: database.url,
      dataDir: path.join(dir, "data"),
      consoleLog: path.join(dir, "console.log"),
      operatorLog: path.join(dir, "operator.log"),
      log: say,
    });
    const running = stack;
    const api = chaosApi({ url: () => running.operatorUrl(), token: () => running.token() });
    say("submitting the demo job…");
    await submitDemo(api);
    const start = {
      operator: await rssMb(running.operatorPid()),
      console: await rssMb(running.consolePid()),
    };
    say(`soaking for ${config.durationMs / 60_000} min, a fault every ${config.faultEveryMs / 1000} s…`);
    const log = await runScenario({ api, stack: running, config, say });
    await settle(api, config.settleMs);
    const figures = await collectFigures({
      db,
      api,
      operator: { url: running.operatorUrl(), token: running.token() },
      log,
      rss: {
        operatorRssStartMb: start.operator,
        operatorRssEndMb: await rssMb(running.operatorPid()),
        consoleRssStartMb: start.console,
        consoleRssEndMb: await rssMb(running.consolePid()),
      },
    });
    printFigures(figures);
    await db.$disconnect();
  } finally {
    await stack?.close();
    await database.stop();
    // A pod's last writes can race the removal: retried.
    await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 500 });
  }
}

main().catch((error: unknown) => {
  console.error(`bench:chaos: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
