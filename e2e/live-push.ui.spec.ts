import { type APIRequestContext, expect, type Page, type Request, test } from "@playwright/test";
import { closeEventSources, trackEventSources } from "./fixtures/event-streams";
import { deleteOperatorJob, submitOperatorJob } from "./fixtures/operator-jobs";
import { signIn } from "./pages/job-page";

/**
 * Every live view by push (issue 13): the jobs list and the cluster page update without a reload and
 * without any periodic request from the browser. The network log of an idle page shows one open SSE
 * stream and no tRPC query asked twice; a job submitted and deleted meanwhile (through the operator's API,
 * as a CLI would) shows up in, and leaves, the open list.
 */
const NAMESPACE = "hyperpod-ns-llm-research";
const JOB = "e2e-live-push";
/** How long an idle page is watched for periodic requests (the old list polled every 2 s). */
const IDLE_WINDOW_MS = 6_000;

const jobYaml = `apiVersion: sagemaker.amazonaws.com/v1
kind: HyperPodPyTorchJob
metadata:
  name: ${JOB}
  namespace: ${NAMESPACE}
spec:
  nprocPerNode: "1"
  replicaSpecs:
    - name: workers
      replicas: 1
      template:
        spec:
          containers:
            - name: trainer
              image: rebound/demo:latest
              command: ["npx", "rebound-agent", "--nproc-per-node", "1", "--server-port", "8080"]
              args: ["examples/trainer/dist/demo-trainer.mjs", "--steps", "0"]
              resources:
                limits:
                  nvidia.com/gpu: 1
`;

test.describe.configure({ mode: "serial" });

/** Every request the page makes, and which of them finished or failed (an SSE stream does neither while open). */
function networkLog(page: Page) {
  const requests: Array<{ at: number; request: Request }> = [];
  const ended = new Set<Request>();
  page.on("request", (request) => requests.push({ at: Date.now(), request }));
  page.on("requestfinished", (request) => ended.add(request));
  page.on("requestfailed", (request) => ended.add(request));
  return {
    since: (from: number) => requests.filter((entry) => entry.at >= from).map((entry) => entry.request),
    all: () => requests.map((entry) => entry.request),
    ended: (request: Request) => ended.has(request),
  };
}

const isTrpc = (request: Request) => new URL(request.url()).pathname.startsWith("/api/trpc/");
const isStream = (request: Request, procedure: string) =>
  isTrpc(request) && new URL(request.url()).pathname === `/api/trpc/${procedure}`;

/** A measurement window, not a wait for a condition: the page is left alone while its requests are logged. */
const observe = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The idle page asked nothing twice, no tRPC query at all, and kept its one stream open. */
function expectIdle(log: ReturnType<typeof networkLog>, opts: { from: number; stream: string }) {
  const during = log.since(opts.from).map((request) => `${request.method()} ${request.url()}`);
  expect(during.filter((line) => line.includes("/api/trpc/"))).toEqual([]);
  expect(new Set(during).size).toBe(during.length);
  const queries = log
    .all()
    .filter((request) => isTrpc(request) && !isStream(request, opts.stream))
    .map((request) => request.url());
  expect(new Set(queries).size).toBe(queries.length);
  const streams = log.all().filter((request) => isStream(request, opts.stream));
  expect(streams).toHaveLength(1);
  expect(log.ended(streams[0] as Request)).toBe(false);
}

const deleteJob = (request: APIRequestContext) =>
  deleteOperatorJob(request, { namespace: NAMESPACE, name: JOB });
const submitJob = (request: APIRequestContext) => submitOperatorJob(request, jobYaml);

test.beforeAll(async ({ request }) => deleteJob(request));
test.afterAll(async ({ request }) => deleteJob(request));

test("the jobs list is pushed: no periodic request, a submitted job appears and a deleted one goes", async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  await signIn(page, "engineer@rebound.local");
  const log = networkLog(page);
  await page.goto("/jobs");
  const jobs = page.getByRole("region", { name: "Jobs" }).or(page.getByText("No jobs yet."));
  await expect(jobs.first()).toBeVisible({ timeout: 30_000 });

  const idleFrom = Date.now();
  await observe(IDLE_WINDOW_MS);
  expectIdle(log, { from: idleFrom, stream: "jobs.listWatch" });

  const changedFrom = Date.now();
  await submitJob(request);
  const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: JOB, exact: true }) });
  await expect(row).toBeVisible({ timeout: 15_000 });
  await deleteJob(request);
  await expect(row).toHaveCount(0, { timeout: 15_000 });
  // No reload, no query: the changes came over the one open stream.
  const afterChange = log.since(changedFrom);
  expect(afterChange.filter((request) => request.isNavigationRequest())).toEqual([]);
  expect(afterChange.filter(isTrpc).map((request) => request.url())).toEqual([]);
  expectIdle(log, { from: changedFrom, stream: "jobs.listWatch" });
});

test("the cluster page is pushed: no periodic request while it is open", async ({ page }) => {
  await signIn(page, "viewer@rebound.local");
  const log = networkLog(page);
  await page.goto("/cluster");
  await expect(page.getByRole("table", { name: "Nodes" })).toBeVisible({ timeout: 30_000 });
  const idleFrom = Date.now();
  await observe(IDLE_WINDOW_MS);
  expectIdle(log, { from: idleFrom, stream: "cluster.nodesWatch" });
});

test("a dropped list stream keeps the last rows under a Reconnecting note, and comes back", async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  // Keep a handle on the page's EventSources, so the test can close the live stream's connection.
  await trackEventSources(page);
  await submitJob(request);
  await signIn(page, "engineer@rebound.local");
  const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: JOB, exact: true }) });
  await expect(row).toBeVisible({ timeout: 15_000 });
  const note = page.getByRole("status").filter({ hasText: /^Reconnecting…/ });
  await expect(note).toHaveCount(0);

  await page.route("**/api/trpc/jobs.listWatch**", (route) => route.abort("connectionrefused"));
  await closeEventSources(page);
  await expect(note).toBeVisible({ timeout: 30_000 });
  await expect(row).toBeVisible();
  await page.screenshot({ path: test.info().outputPath("jobs-list-reconnecting.png"), fullPage: true });

  await page.unroute("**/api/trpc/jobs.listWatch**");
  await expect(note).toHaveCount(0, { timeout: 30_000 });
  await expect(row).toBeVisible();
});

test("the header's section links fetch their page when pointed at, not as soon as a page opens", async ({
  page,
}) => {
  await signIn(page, "viewer@rebound.local");
  const log = networkLog(page);
  await page.goto("/cluster");
  await expect(page.getByRole("table", { name: "Nodes" })).toBeVisible({ timeout: 30_000 });
  const isPageFetch = (request: Request, path: string) => {
    const url = new URL(request.url());
    return url.pathname === path && url.searchParams.has("_rsc");
  };
  await observe(2_000);
  // Next's default would have fetched all five sections by now; none is fetched ahead.
  const sections = ["/", "/jobs", "/cluster", "/governance", "/policies"];
  const ahead = log.all().filter((request) => sections.some((path) => isPageFetch(request, path)));
  expect(ahead.map((request) => request.url())).toEqual([]);
  const nav = page.getByRole("navigation", { name: "Main" });
  await nav.getByRole("link", { name: "Jobs" }).hover();
  await expect.poll(() => log.all().some((request) => isPageFetch(request, "/jobs"))).toBe(true);
  expect(log.all().some((request) => isPageFetch(request, "/governance"))).toBe(false);
  await nav.getByRole("link", { name: "Jobs" }).click();
  await expect(page).toHaveURL(/\/jobs$/);
});
