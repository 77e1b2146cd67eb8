import path from "node:path";
import { parseArgs } from "node:util";
import { type Browser, chromium, type Page } from "@playwright/test";
import { CHROMIUM_ARGS, chromiumExecutablePath } from "@/e2e/chromium";
import { buildConsoleIfNeeded } from "@/scripts/lib/next-build";
import { parseConfig } from "../k8s/config";
import { type BenchEnvironment, createLifecycle, NAMESPACE, openEnvironment } from "../k8s/environment";
import { JOB_NAME, startJob } from "../k8s/job";
import { exitWhenDone } from "../lib/isolated";
import { startConsoleProcess } from "./console-process";
import { installProbe, type PageProbe } from "./page-probe";
import { startProfile } from "./profile";

/**
 * The console with a 2,048-rank job (its targets are in docs/benchmarks.md), run by `npm run bench:console`: the
 * bench:k8s environment (real apiserver + KWOK, the operator, stand-in agents whose ranks report a new step
 * every second), the console as `npm start` serves it, and Debian's Chromium driven by Playwright.
 * Measures, from navigation start: when the page shows all ranks, and when a click on a rank has opened its
 * panel (interactive); then, over --watch-s seconds of 1 Hz live updates, every long task (> 50 ms) on the
 * main thread. Prints a table, then `BENCH console <json>`.
 */
const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    nodes: { type: "string", default: "256" },
    "watch-s": { type: "string", default: "30" },
    runs: { type: "string", default: "5" },
    profile: { type: "string" },
    console: { type: "string" },
  },
});
const nodes = Number(values.nodes);
const watchMs = Number(values["watch-s"]) * 1000;
const runs = Number(values.runs);
const ranks = nodes * 8;
const began = Date.now();
const log = (line: string) =>
  process.stderr.write(`[bench:console +${((Date.now() - began) / 1000).toFixed(1)}s] ${line}\n`);

type Load = { dataMs: number; interactiveMs: number; clickToPanelMs: number; loadTasks: string };

async function signedInPage(browser: Browser, url: string): Promise<Page> {
  const context = await browser.newContext({ baseURL: url, viewport: { width: 1440, height: 900 } });
  const response = await context.request.post("/api/trpc/auth.signIn", {
    data: { json: { email: "engineer@rebound.local", password: "rebound-demo" } },
  });
  if (!response.ok()) throw new Error(`sign-in failed: ${response.status()}`);
  const page = await context.newPage();
  await page.addInitScript(installProbe, ranks);
  return page;
}

const probe = (page: Page) => page.evaluate(() => (window as unknown as { __bench: PageProbe }).__bench);

/** One cold load of the job page: all ranks shown, then a click on a rank (from page-probe.ts) answered. */
async function load(
  browser: Browser,
  url: string,
  beforeNavigation?: (page: Page) => Promise<void>,
): Promise<{ page: Page; load: Load }> {
  const page = await signedInPage(browser, url);
  await beforeNavigation?.(page);
  await page.goto(`/jobs/${NAMESPACE}/${JOB_NAME}`);
  await page
    .getByTestId("ranks-healthy")
    .filter({ hasText: `/${ranks}` })
    .waitFor({ timeout: 60_000 });
  await page.getByTestId("selected-rank-health").waitFor();
  const seen = await probe(page);
  const dataMs = seen.dataAt ?? Number.NaN;
  const interactiveMs = seen.panelAt ?? Number.NaN;
  const clickAt = seen.clickAt ?? Number.NaN;
  // Where the main thread was busy on the way: each long task as start+duration (ms after navigation).
  const loadTasks = `click ran at ${Math.round(clickAt)}; ${seen.longTasks
    .filter((task) => task.start < interactiveMs)
    .map((task) => `${Math.round(task.start)}+${Math.round(task.duration)}`)
    .join(" ")}`;
  return { page, load: { dataMs, interactiveMs, clickToPanelMs: interactiveMs - clickAt, loadTasks } };
}

/** 1 Hz live updates for watchMs: long tasks and how often the rank table was re-rendered. */
async function watch(page: Page) {
  const from = await page.evaluate(() => performance.now());
  await page.waitForTimeout(watchMs);
  const seen = await probe(page);
  // The Long Tasks API reports tasks of 50 ms and more; the target is none over 50 ms.
  const tasks = seen.longTasks.filter((task) => task.start >= from && task.duration > 50);
  const updates = seen.tableUpdates.filter((at) => at >= from);
  const seconds = new Set(updates.map((at) => Math.floor(at / 1000))).size;
  return {
    longTasks: tasks.length,
    longTaskMaxMs:
      Math.round(
        10 * Math.max(0, ...seen.longTasks.filter((task) => task.start >= from).map((task) => task.duration)),
      ) / 10,
    secondsWithUpdates: seconds,
  };
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

function report(loads: Load[], watched: Awaited<ReturnType<typeof watch>>, consolePeakRssMb: number | null) {
  const row = (label: string, value: string, target = "") =>
    `${label.padEnd(58)}${value.padStart(10)}  ${target}`;
  const interactive = median(loads.map((l) => l.interactiveMs));
  const lines = [
    "",
    `Console: job page of a ${ranks}-rank job (${nodes} nodes × 8), Chromium, ${loads.length} cold loads, ${watchMs / 1000} s of 1 Hz updates`,
    row("navigation → all ranks shown, ms (median)", String(Math.round(median(loads.map((l) => l.dataMs))))),
    row(
      "navigation → a rank click answered (interactive), ms",
      String(Math.round(interactive)),
      `< 1500 ${interactive < 1500 ? "met" : "MISSED"}`,
    ),
    row("  each load, ms", loads.map((l) => Math.round(l.interactiveMs)).join(" / ")),
    row(
      "click → rank panel shown, ms (median)",
      String(Math.round(median(loads.map((l) => l.clickToPanelMs)))),
    ),
    row(
      `long tasks > 50 ms during ${watchMs / 1000} s of updates`,
      String(watched.longTasks),
      `0 ${watched.longTasks === 0 ? "met" : "MISSED"}`,
    ),
    row("longest task (≥ 50 ms reported) during updates, ms", String(watched.longTaskMaxMs)),
    row("seconds in which the rank table re-rendered", `${watched.secondsWithUpdates}/${watchMs / 1000}`),
    row("the console's peak RSS, MB", String(consolePeakRssMb ?? "—")),
  ];
  console.log(lines.join("\n"));
  const bench = {
    rank_page_interactive_ms: Math.round(interactive),
    rank_page_data_ms: Math.round(median(loads.map((l) => l.dataMs))),
    rank_click_to_panel_ms: Math.round(median(loads.map((l) => l.clickToPanelMs))),
    long_tasks_over_50ms: watched.longTasks,
    long_task_max_ms: watched.longTaskMaxMs,
    seconds_with_updates: watched.secondsWithUpdates,
    console_peak_rss_mb: consolePeakRssMb,
    watch_s: watchMs / 1000,
    ranks,
    loads: loads.length,
    run_s: Math.round((Date.now() - began) / 1000),
  };
  console.log(`BENCH console ${JSON.stringify(bench)}`);
}

async function measure(env: BenchEnvironment, dir: string) {
  log("building the console if needed…");
  await buildConsoleIfNeeded(log);
  const job = await startJob(env, { nodes, gpusPerNode: 8, timeoutMs: 120_000 });
  log(`job Running ${job.runningAt - job.createdAt} ms after it was created`);
  const consoleProcess = await startConsoleProcess({
    databaseUrl: env.databaseUrl,
    operatorUrl: env.operator.url,
    operatorToken: env.operator.token,
    logFile: path.join(dir, "console.log"),
  });
  try {
    // A console that dies (its heap limit) fails the run at once, saying why, instead of a page left waiting.
    const watched = await Promise.race([measureConsole(consoleProcess.url), consoleProcess.exited]);
    report(watched.loads, watched.updates, consoleProcess.peakRssMb());
  } finally {
    await consoleProcess.stop();
  }
}

/** The loads, the profile if asked, and the updates, on the console at `url`. */
async function measureConsole(url: string) {
  const browser = await chromium.launch({ executablePath: chromiumExecutablePath, args: [...CHROMIUM_ARGS] });
  try {
    // A first load warms the console's server (route compilation, tRPC caches); it is not counted.
    log("warm-up load…");
    await (await load(browser, url)).page.context().close();
    const loads: Load[] = [];
    let last: Page | null = null;
    for (let i = 0; i < runs; i += 1) {
      if (last) await last.context().close();
      const measured = await load(browser, url);
      loads.push(measured.load);
      last = measured.page;
      log(
        `load ${i + 1}/${runs}: all ranks ${Math.round(measured.load.dataMs)} ms, interactive ${Math.round(measured.load.interactiveMs)} ms; long tasks (start+ms) ${measured.load.loadTasks || "none"}`,
      );
    }
    if (values.profile) {
      const dir = values.profile;
      const stops: (() => Promise<string>)[] = [];
      const profiled = await load(browser, url, async (page) => {
        stops.push(await startProfile(page, dir, "load"));
      });
      const written = await Promise.all(stops.map((stop) => stop()));
      log(`profiled one more load (interactive ${Math.round(profiled.load.interactiveMs)} ms): ${written}`);
      await profiled.page.context().close();
    }
    log(`watching ${watchMs / 1000} s of live updates…`);
    const stopProfile = values.profile ? await startProfile(last as Page, values.profile, "updates") : null;
    const watched = await watch(last as Page);
    if (stopProfile) log(`profiled the updates: ${await stopProfile()}`);
    return { loads, updates: watched };
  } finally {
    await browser.close();
  }
}

async function main(): Promise<void> {
  const life = createLifecycle(log);
  process.on("disconnect", () => {
    log("interrupted: stopping every process and removing the temp dirs");
    void life.close().finally(() => process.exit(130));
  });
  // --console URL: a console already serving the bench's job (its environment left up by another run).
  if (values.console) {
    const measured = await measureConsole(values.console);
    return report(measured.loads, measured.updates, null);
  }
  const config = parseConfig(["--nodes", String(nodes)]);
  try {
    const env = await openEnvironment({ config, life, log, agentStepMs: 1000 });
    await measure(env, path.dirname(env.cluster.kubeconfigPath));
  } finally {
    log("cleaning up");
    await life.close();
  }
}

exitWhenDone(main(), log);
