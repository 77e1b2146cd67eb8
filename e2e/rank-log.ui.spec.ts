import { readFileSync } from "node:fs";
import { type APIRequestContext, expect, type Locator, test } from "@playwright/test";
import { deleteOperatorJob, resubmitOperatorJob } from "./fixtures/operator-jobs";
import { trpcMutation } from "./fixtures/trpc";
import { JobPagePo, signIn } from "./pages/job-page";

/**
 * The engineer's rank panel and rank table at 1,440 px (issue 36 items 1-3), against npm start's stack: the
 * log opens on its newest line and follows new output until scrolled up; its search is plain text; only
 * lines that make a rule act are marked; "Download log" gives the rank's whole log, and only to those who
 * may read it; Rank and Health stay in view while the table scrolls sideways, and hidden columns stay
 * hidden across a reload; the restart actions say what they restart.
 */
const NAMESPACE = "hyperpod-ns-llm-research";
const JOB = "e2e-rank-log";
const LOG_ROUTE = `/api/jobs/${NAMESPACE}/${JOB}/log?rank=0`;

/** One pod of two ranks printing a step every 20 ms, under demo-job.yaml's rules. */
const JOB_YAML = `apiVersion: sagemaker.amazonaws.com/v1
kind: HyperPodPyTorchJob
metadata:
  name: ${JOB}
  namespace: ${NAMESPACE}
spec:
  nprocPerNode: "2"
  replicaSpecs:
    - name: workers
      replicas: 1
      template:
        spec:
          containers:
            - name: trainer
              image: rebound/demo:latest
              command: ["npx", "rebound-agent", "--nproc-per-node", "2", "--server-port", "8080", "--log-rules-all-ranks", "--tee", "3", "examples/trainer/dist/demo-trainer.mjs", "--steps", "0", "--step-ms", "20"]
              resources:
                limits:
                  nvidia.com/gpu: 2
  runPolicy:
    jobMaxRetryCount: 20
    logMonitoringConfiguration:
      - name: JobHang
        logPattern: '.*step=(\\d+).*'
        expectedRecurringFrequencyInSeconds: 30
      - name: LossNaN
        logPattern: ".*loss=(nan|inf).*"
        faultOnMatch: true
      - name: LowThroughput
        logPattern: ".*throughput=([0-9.]+).*"
        metricThreshold: 100
        operator: lt
        metricEvaluationDataPoints: 1000
`;

test.describe.configure({ mode: "serial" });
test.use({ viewport: { width: 1440, height: 900 } });

test.beforeAll(async ({ request }) =>
  resubmitOperatorJob(request, { job: { namespace: NAMESPACE, name: JOB }, yaml: JOB_YAML }),
);
test.afterAll(async ({ request }) => deleteOperatorJob(request, { namespace: NAMESPACE, name: JOB }));

/** How far the box is from its bottom, in CSS px. */
const distanceFromBottom = (box: Locator) =>
  box.evaluate((element) => element.scrollHeight - element.clientHeight - element.scrollTop);

test("the rank log tails, searches as plain text, marks only rule matches and downloads the whole log", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await signIn(page, "engineer@rebound.local");
  const job = new JobPagePo(page);
  await job.goto(NAMESPACE, JOB);
  await job.selectRank(0);
  const log = page.getByRole("log", { name: "Log of rank 0" });
  // The tail is full (200 lines) and far taller than its box; the view sits on the newest line.
  await expect(page.getByText("the newest 200 lines")).toBeVisible({ timeout: 60_000 });
  expect(await log.evaluate((element) => element.scrollHeight > element.clientHeight * 4)).toBe(true);
  await expect.poll(() => distanceFromBottom(log)).toBeLessThanOrEqual(8);
  const newest = await log.evaluate((element) => element.textContent?.trim().split("\n").at(-1) ?? "");
  // It follows: newer steps arrive and the view is still at the bottom.
  await expect
    .poll(async () => log.evaluate((element) => element.textContent?.trim().split("\n").at(-1) ?? ""))
    .not.toBe(newest);
  expect(await distanceFromBottom(log)).toBeLessThanOrEqual(8);

  // Scrolled up, it stays put while lines arrive, until "Jump to newest".
  await log.evaluate((element) => element.scrollTo({ top: 0 }));
  const jump = page.getByRole("button", { name: "Jump to newest" });
  await expect(jump).toBeVisible();
  await expect.poll(() => distanceFromBottom(log)).toBeGreaterThan(1000);
  expect(await log.evaluate((element) => element.scrollTop)).toBe(0);
  await jump.click();
  await expect(jump).toBeHidden();
  await expect.poll(() => distanceFromBottom(log)).toBeLessThanOrEqual(8);

  // A healthy trainer's progress lines match the hang and metric rules but make none act: none is marked.
  const ruleLines = log.locator("mark[title^='log rule:']");
  await expect(ruleLines).toHaveCount(0);

  // The search keeps the lines containing the text, whatever its case; ".*" is two characters, not a regex.
  const search = page.getByRole("searchbox", { name: "Search the log of rank 0" });
  await search.fill("RANK=0");
  await expect(page.getByText(/^\d+ of \d+ lines contain “RANK=0”$/)).toBeVisible();
  await search.fill(".*");
  await expect(page.getByText("No line contains “.*”.")).toBeVisible();
  await search.fill("");

  // A slowdown takes throughput under the rule's 100: those lines, and only those, are marked.
  await job.confirm("Inject slowdown");
  await expect(ruleLines.first()).toHaveAttribute("title", "log rule: LowThroughput: value < 100", {
    timeout: 30_000,
  });
  for (const text of await ruleLines.allTextContents())
    expect(Number(/throughput=([0-9.]+)/.exec(text)?.[1])).toBeLessThan(100);

  // The download is the rank's whole log since its attempt started, not the 200 lines on screen.
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "Download log" }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(`${NAMESPACE}_${JOB}_rank-0.log`);
  const lines = readFileSync(await download.path(), "utf8")
    .trimEnd()
    .split("\n");
  expect(lines[0]).toMatch(/^training started rank=0 /);
  expect(lines.length).toBeGreaterThan(200);
});

test("only someone who may read the job's logs gets the file", async ({ playwright, baseURL }) => {
  const anonymous = await playwright.request.newContext({ baseURL });
  expect((await anonymous.get(LOG_ROUTE)).status()).toBe(401);

  const admin = await playwright.request.newContext({ baseURL });
  await trpcMutation(admin, "auth.signIn", { email: "admin@rebound.local", password: "rebound-demo" });
  const created = await trpcMutation(admin, "shareTokens.create", {
    label: `${JOB} tv`,
    views: ["jobs"],
    allTeams: true,
    teamIds: [],
  });
  expect(created.status()).toBe(200);
  const { token, secret } = (
    (await created.json()) as { result: { data: { json: { token: { id: string }; secret: string } } } }
  ).result.data.json;
  // A TV's token reads the TV views, not logs (jobs.logs is for signed-in users only).
  const shared = await anonymous.get(LOG_ROUTE, { headers: { "x-rebound-share-token": secret } });
  expect(shared.status()).toBe(401);
  await trpcMutation(admin, "shareTokens.revoke", { id: token.id });

  const vision = await playwright.request.newContext({ baseURL });
  await trpcMutation(vision, "auth.signIn", { email: "vision@rebound.local", password: "rebound-demo" });
  const foreign = await vision.get(LOG_ROUTE);
  expect(foreign.status()).toBe(404);
  expect(await foreign.text()).toContain(`job ${NAMESPACE}/${JOB} not found`);
  expect((await admin.get(LOG_ROUTE)).headers()["content-type"]).toBe("text/plain; charset=utf-8");
  for (const context of [anonymous, admin, vision] as APIRequestContext[]) await context.dispose();
});

test("at 1,440 px the rank table shows every column; narrower, it keeps Rank and Health in view; hidden columns are remembered", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page, "engineer@rebound.local");
  const job = new JobPagePo(page);
  await job.goto(NAMESPACE, JOB);
  const table = job.rankTable();
  await expect(job.rankRow(1)).toBeVisible({ timeout: 30_000 });
  const scroller = table.locator("xpath=..");
  expect(await scroller.evaluate((element) => element.scrollWidth - element.clientWidth)).toBeLessThanOrEqual(
    0,
  );
  await expect(job.rankColumn("Last line")).toBeInViewport();

  // Narrower than the table: it scrolls sideways and Rank and Health stay in view.
  await page.setViewportSize({ width: 1024, height: 900 });
  await expect
    .poll(() => scroller.evaluate((element) => element.scrollWidth - element.clientWidth))
    .toBeGreaterThan(0);
  await scroller.evaluate((element) => element.scrollTo({ left: element.scrollWidth }));
  await expect.poll(() => scroller.evaluate((element) => element.scrollLeft)).toBeGreaterThan(0);
  const box = await scroller.boundingBox();
  for (const name of ["Rank", "Health", "Straggler", "Last line"]) {
    const header = await job.rankColumn(name).boundingBox();
    expect(header, name).not.toBeNull();
    expect(header?.x ?? -1, name).toBeGreaterThanOrEqual(box?.x ?? 0);
    expect((header?.x ?? 0) + (header?.width ?? 0), name).toBeLessThanOrEqual(
      (box?.x ?? 0) + (box?.width ?? 0) + 1,
    );
  }
  await expect(job.rankRow(1).getByRole("button", { name: "Select rank 1", exact: true })).toBeInViewport();

  await page.getByText("Columns", { exact: true }).click();
  await expect(page.getByRole("checkbox", { name: /^Health/ })).toBeDisabled();
  await page.getByRole("checkbox", { name: "Pod", exact: true }).uncheck();
  await expect(job.rankColumn("Pod")).toHaveCount(0);
  await page.reload();
  await expect(job.rankRow(1)).toBeVisible({ timeout: 30_000 });
  await expect(job.rankColumn("Pod")).toHaveCount(0);
  await expect(job.rankColumn("Node")).toBeVisible();
  await page.getByText("Columns", { exact: true }).click();
  await page.getByRole("checkbox", { name: "Pod", exact: true }).check();
  await expect(job.rankColumn("Pod")).toBeVisible();
});

test("a rank offers what can be done to it, and the in-place restart says it restarts every rank", async ({
  page,
}) => {
  await signIn(page, "engineer@rebound.local");
  const job = new JobPagePo(page);
  await job.goto(NAMESPACE, JOB);
  await job.selectRank(1);
  await expect(page.getByRole("button", { name: "Restart rank", exact: true })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Replace this rank's pod" })).toBeVisible();
  await page.getByRole("button", { name: "Restart all ranks in place" }).click();
  const dialog = page.getByRole("dialog", { name: "Restart every rank of the job in place?" });
  await expect(dialog).toContainText("Every process of the job restarts in place");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
});
