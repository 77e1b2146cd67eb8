import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildConsoleIfNeeded } from "@/scripts/lib/next-build";
import { startEmbeddedPostgres } from "@/server/db/embedded";
import { migrate } from "@/server/db/migrate";
import { postLyingLength, postStreamed, rssBytes } from "@/server/http/testing/oversized-bodies";
import { startConsoleProcess } from "../console/console-process";
import type { Lifecycle } from "../k8s/environment";

/**
 * The body half of `npm run bench:abuse` (issue 16 item 5): the built console as `npm start` serves it,
 * its RSS before and after `bodies` concurrent `bodyMb` MB bodies to `auth.signIn` (streamed from a
 * generator), the time from each request's start to its 413, and a lying Content-Length's time to 413.
 */
export type BodyAbuseOptions = {
  /** Stops what the part starts: at the end, or at once when the bench is interrupted. */
  life: Lifecycle;
  log: (line: string) => void;
  bodies?: number;
  bodyMb?: number;
};

const MB = 1024 * 1024;
const settle = () => new Promise((resolve) => setTimeout(resolve, 1000));

/** Samples a process's RSS every 10 ms until stopped; returns the peak. */
function peakRss(pid: number): { stop: () => number } {
  let peak = rssBytes(pid);
  let failure: unknown = null;
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssBytes(pid));
    } catch (error) {
      failure = error;
      clearInterval(timer);
    }
  }, 10);
  return {
    stop: () => {
      clearInterval(timer);
      if (failure) throw failure;
      return Math.max(peak, rssBytes(pid));
    },
  };
}

async function measure(opts: { url: string; pid: number; bodies: number; bodyMb: number }) {
  const signIn = `${opts.url}/api/trpc/auth.signIn`;
  // Warm-up: the route compiled and a first refusal served, so the figures are the bodies' own.
  for (let round = 0; round < 3; round += 1) {
    await Promise.all(
      Array.from({ length: opts.bodies }, () => postStreamed({ url: signIn, totalBytes: 2 * MB })),
    );
  }
  await settle();
  const rssBefore = rssBytes(opts.pid);
  const peak = peakRss(opts.pid);
  const refusals = await Promise.all(
    Array.from({ length: opts.bodies }, () => postStreamed({ url: signIn, totalBytes: opts.bodyMb * MB })),
  );
  const rssPeak = peak.stop();
  await settle();
  const rssAfter = rssBytes(opts.pid);
  const lying = await postLyingLength({ url: signIn, declaredBytes: opts.bodyMb * MB });
  const statuses = [...refusals.map((r) => r.status), lying.status];
  if (statuses.some((status) => status !== 413))
    throw new Error(`expected 413 to every body, got ${statuses}`);
  const ms = refusals.map((r) => Math.round(r.ms));
  return {
    console_rss_before_mb: Math.round(rssBefore / MB),
    console_rss_peak_mb: Math.round(rssPeak / MB),
    console_rss_after_mb: Math.round(rssAfter / MB),
    body_413_ms_max: Math.max(...ms),
    ...Object.fromEntries(ms.map((value, i) => [`body_${i + 1}_413_ms`, value])),
    lying_length_413_ms: Math.round(lying.ms),
    bodies: opts.bodies,
    body_mb: opts.bodyMb,
  };
}

function print(figures: Awaited<ReturnType<typeof measure>>) {
  const row = (label: string, value: number | string, target = "") =>
    `${label.padEnd(58)}${String(value).padStart(10)}  ${target}`;
  const growth = figures.console_rss_peak_mb - figures.console_rss_before_mb;
  console.log(
    [
      "",
      `Console request bodies: ${figures.bodies} concurrent ${figures.body_mb} MB bodies to auth.signIn (limit 1 MiB)`,
      row("console RSS before, MB", figures.console_rss_before_mb),
      row("console RSS peak while refusing, MB", figures.console_rss_peak_mb, `growth ${growth} MB`),
      row("console RSS after, MB", figures.console_rss_after_mb),
      row("slowest time to 413, ms", figures.body_413_ms_max),
      row("lying Content-Length: time to 413, ms", figures.lying_length_413_ms),
    ].join("\n"),
  );
}

export async function runBodyAbuse(opts: BodyAbuseOptions): Promise<Record<string, number>> {
  const { life, log } = opts;
  await buildConsoleIfNeeded(log);
  const dir = await mkdtemp(path.join(tmpdir(), "rebound-abuse-bodies-"));
  life.defer("remove the temp dir", () => rm(dir, { recursive: true, force: true }));
  const database = await startEmbeddedPostgres({ dataDir: dir });
  life.defer("stop PostgreSQL", () => database.stop());
  await migrate(database.url);
  const consoleProcess = await startConsoleProcess({
    databaseUrl: database.url,
    // auth.signIn reads no cluster; the console needs an operator address to start, never calls it here.
    operatorUrl: "http://127.0.0.1:9",
    operatorToken: "unused",
    logFile: path.join(dir, "console.log"),
  });
  life.defer("stop the console", () => consoleProcess.stop());
  log(`console up (pid ${consoleProcess.pid}); sending the bodies…`);
  const figures = await measure({
    url: consoleProcess.url,
    pid: consoleProcess.pid,
    bodies: opts.bodies ?? 3,
    bodyMb: opts.bodyMb ?? 200,
  }).catch(async (error: unknown) => {
    const tail = (await readFile(path.join(dir, "console.log"), "utf8")).split("\n").slice(-20).join("\n");
    log(`the console's last lines:\n${tail}`);
    throw error;
  });
  print(figures);
  return figures;
}
