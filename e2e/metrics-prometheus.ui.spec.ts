import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  type APIRequestContext,
  type Browser,
  expect,
  type Locator,
  type Page,
  test,
} from "@playwright/test";
import { startPrometheus, type TestPrometheus } from "../test/prometheus";
import {
  type OperatorApi,
  operatorHeaders,
  PRIMARY_OPERATOR,
  resubmitOperatorJob,
} from "./fixtures/operator-jobs";
import { signIn } from "./pages/job-page";

/**
 * Without Prometheus (the primary stack, playwright.config.ts's webServer) the charts come from the
 * operator's embedded history and survive a reload; with Prometheus, charts from a real Prometheus (Debian's package, on loopback) scraping a running operator and its agents:
 * a SECOND console stack (npm start's launcher, its own ports and data dir) with PROMETHEUS_URL, the demo
 * job submitted to it. The job page's throughput chart and the TV's (/tv/reliability) draw points; then
 * Prometheus is stopped and both say "Metrics unavailable" while the rank table keeps updating.
 */
const PORT = Number(process.env.E2E_PORT ?? 3210) + 10;
const OPERATOR_PORT = PORT + 1;
const BASE_URL = `http://127.0.0.1:${PORT}`;
const OPERATOR = `http://127.0.0.1:${OPERATOR_PORT}`;
const DATA_DIR = path.resolve(process.env.E2E_DATA_DIR ?? ".data/e2e", "..", "e2e-prometheus");
const NAMESPACE = "hyperpod-ns-llm-research";
const JOB = "demo-llm";

test.describe.configure({ mode: "serial" });

let prometheus: TestPrometheus;
let stack: ChildProcess;
let stackLog = "";

/** The second stack's operator API. */
const SECOND_OPERATOR: OperatorApi = { url: OPERATOR, dataDir: DATA_DIR };

async function waitForConsole(): Promise<void> {
  const deadline = Date.now() + 280_000;
  while (Date.now() < deadline) {
    if (stack.exitCode !== null) throw new Error(`the second stack exited (${stack.exitCode}):\n${stackLog}`);
    const ok = await fetch(`${BASE_URL}/api/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  throw new Error(`the second stack did not answer on ${BASE_URL}:\n${stackLog}`);
}

const submitDemoJob = (request: APIRequestContext) =>
  resubmitOperatorJob(request, {
    job: { namespace: NAMESPACE, name: JOB },
    yaml: readFileSync("examples/jobs/demo-job.yaml", "utf8"),
    operator: SECOND_OPERATOR,
  });

test.beforeAll(async ({ request }) => {
  test.setTimeout(360_000);
  prometheus = await startPrometheus({
    targetsFile: path.join(DATA_DIR, "local", "prometheus-targets.json"),
    operator: `127.0.0.1:${OPERATOR_PORT}`,
  });
  stack = spawn(path.resolve("node_modules/.bin/tsx"), ["scripts/start.ts"], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      PORT: String(PORT),
      HOSTNAME: "127.0.0.1",
      OPERATOR_PORT: String(OPERATOR_PORT),
      REBOUND_DATA_DIR: DATA_DIR,
      REBOUND_DEMO: "never",
      PROMETHEUS_URL: prometheus.url,
      NEXT_TELEMETRY_DISABLED: "1",
    },
  });
  const keep = (chunk: Buffer) => {
    stackLog = (stackLog + chunk.toString()).slice(-200_000);
  };
  stack.stdout?.on("data", keep);
  stack.stderr?.on("data", keep);
  await waitForConsole();
  await submitDemoJob(request);
});

test.afterAll(async () => {
  const testInfo = test.info();
  test.setTimeout(60_000);
  // The second stack's own output (its console and operator), for a failure's post-mortem.
  mkdirSync(testInfo.outputDir, { recursive: true });
  writeFileSync(testInfo.outputPath("second-stack.log"), stackLog);
  await prometheus?.stop();
  if (stack?.pid !== undefined && stack.exitCode === null) {
    const exited = new Promise((resolve) => stack.once("exit", resolve));
    process.kill(-stack.pid, "SIGTERM");
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 40_000))]);
  }
});

/** The line a recharts chart draws, as its number of points (a path "M x,y L x,y …"). */
async function pointsDrawn(chart: Locator): Promise<number> {
  const lines = chart.locator("path.recharts-line-curve");
  if ((await lines.count()) === 0) return 0;
  const d = (await lines.first().getAttribute("d")) ?? "";
  return d.split(/[LC]/).length;
}

async function openTv(browser: Browser): Promise<Page> {
  const admin = await browser.newContext({ baseURL: BASE_URL });
  const signedIn = await admin.request.post("/api/trpc/auth.signIn", {
    data: { json: { email: "admin@rebound.local", password: "rebound-demo" } },
  });
  expect(signedIn.status()).toBe(200);
  const created = await admin.request.post("/api/trpc/shareTokens.create", {
    data: {
      json: { label: "e2e metrics TV", views: ["reliability"], allTeams: true, teamIds: [], pairing: false },
    },
  });
  expect(created.status(), await created.text()).toBe(200);
  const { secret } = ((await created.json()) as { result: { data: { json: { secret: string } } } }).result
    .data.json;
  await admin.close();
  const tv = await browser.newContext({ baseURL: BASE_URL, viewport: { width: 1920, height: 1080 } });
  const page = await tv.newPage();
  await page.goto(`/tv/reliability?token=${secret}`);
  await expect(page).toHaveURL(/\/tv\/reliability$/);
  return page;
}

test("charts from a real Prometheus on the job page and the TV; 'Metrics unavailable' once it stops, the rest live", async ({
  browser,
}, testInfo) => {
  test.setTimeout(240_000);
  const context = await browser.newContext({ baseURL: BASE_URL });
  const page = await context.newPage();
  await signIn(page, "engineer@rebound.local");
  await page.goto(`/jobs/${NAMESPACE}/${JOB}`);
  await expect(page.getByTestId("ranks-healthy")).toHaveText("8/8", { timeout: 90_000 });

  // The throughput chart draws the demo job's total from Prometheus' scrapes of its agents (a point per 5 s step).
  const throughput = page.getByRole("region", { name: "Throughput", exact: true });
  await expect.poll(() => pointsDrawn(throughput), { timeout: 90_000 }).toBeGreaterThanOrEqual(3);
  await expect(throughput).not.toContainText("Metrics unavailable");
  await page.screenshot({ path: testInfo.outputPath("job-page-prometheus.png"), fullPage: true });

  const tv = await openTv(browser);
  const tvChart = tv.getByTestId("tv-throughput");
  await expect.poll(() => pointsDrawn(tvChart), { timeout: 60_000 }).toBeGreaterThanOrEqual(3);
  await tv.screenshot({ path: testInfo.outputPath("tv-reliability-prometheus.png") });

  await prometheus.stop();
  await expect(throughput).toContainText("Metrics unavailable —", { timeout: 30_000 });
  await expect(throughput).toContainText("does not answer");
  await expect(page.getByRole("region", { name: "Loss", exact: true })).toContainText("Metrics unavailable");
  await expect(tv.getByText("Metrics unavailable")).toBeVisible({ timeout: 30_000 });

  // The rest of the page keeps updating: rank 0's row (step, last line, age) changes without a reload.
  const firstRank = page.getByRole("region", { name: "Ranks", exact: true }).getByRole("row").nth(1);
  const before = await firstRank.textContent();
  await expect.poll(() => firstRank.textContent(), { timeout: 15_000 }).not.toBe(before);
  await expect(page.getByTestId("ranks-healthy")).toHaveText("8/8");
  await page.screenshot({ path: testInfo.outputPath("job-page-prometheus-down.png"), fullPage: true });
  await tv.screenshot({ path: testInfo.outputPath("tv-reliability-prometheus-down.png") });
  await context.close();
});

/** The primary stack (no PROMETHEUS_URL): a one-pod copy of the demo job, its charts from the operator. */
const EMBEDDED_JOB = "e2e-metrics-embedded";

test("without Prometheus, the charts come from the operator's history, by push, and survive a reload", async ({
  page,
  request,
}, testInfo) => {
  test.setTimeout(180_000);
  const yaml = readFileSync("examples/jobs/demo-job.yaml", "utf8")
    .replace("name: demo-llm", `name: ${EMBEDDED_JOB}`)
    .replace("replicas: 2", "replicas: 1")
    .replace("spares: 1", "spares: 0");
  await resubmitOperatorJob(request, { job: { namespace: NAMESPACE, name: EMBEDDED_JOB }, yaml });
  try {
    await signIn(page, "engineer@rebound.local");
    const requests: string[] = [];
    page.on("request", (sent) => {
      if (sent.url().includes("/api/trpc/")) requests.push(sent.url());
    });
    await page.goto(`/jobs/${NAMESPACE}/${EMBEDDED_JOB}`);
    await expect(page.getByTestId("ranks-healthy")).toHaveText("4/4", { timeout: 90_000 });
    const throughput = page.getByRole("region", { name: "Throughput", exact: true });
    // One sample per 2 s in the operator, pushed every 5 s.
    await expect.poll(() => pointsDrawn(throughput), { timeout: 60_000 }).toBeGreaterThanOrEqual(3);
    // No polling: the charts' one subscription stays open; nothing asks for metrics again.
    const metricsRequests = () => requests.filter((sent) => sent.includes("metrics.job")).length;
    expect(metricsRequests()).toBe(1);
    const drawn = await pointsDrawn(throughput);
    await expect.poll(() => pointsDrawn(throughput), { timeout: 20_000 }).toBeGreaterThan(drawn);
    expect(metricsRequests()).toBe(1);
    await page.screenshot({ path: testInfo.outputPath("job-page-embedded.png"), fullPage: true });

    // A reload draws the history at once (the operator kept it), not from nothing.
    const before = await pointsDrawn(throughput);
    await page.reload();
    await expect.poll(() => pointsDrawn(throughput), { timeout: 10_000 }).toBeGreaterThanOrEqual(before);
  } finally {
    await request.delete(`${PRIMARY_OPERATOR.url}/api/v1/jobs/${NAMESPACE}/${EMBEDDED_JOB}`, {
      headers: operatorHeaders(),
    });
  }
});
