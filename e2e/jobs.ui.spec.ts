import { readFileSync } from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { expect, type TestInfo, test } from "@playwright/test";
import { closeEventSources, trackEventSources } from "./fixtures/event-streams";
import { resubmitOperatorJob } from "./fixtures/operator-jobs";
import { trpcMutation } from "./fixtures/trpc";
import { JobPagePo, signIn } from "./pages/job-page";

/**
 * The screens ML engineers live in, against npm start's stack (real operator, real agents, real workers):
 * inject a crash from the UI, watch the rank fault and recover, and the restart show up on the timeline,
 * without reloading; a viewer sees no restart action and the server refuses it.
 */
const NAMESPACE = "hyperpod-ns-llm-research";
const JOB = "demo-llm";

test.describe.configure({ mode: "serial" });

/** Screenshots are kept as files under test-results/e2e/ (and attached to the report). */
async function saveScreenshot(testInfo: TestInfo, name: string, take: () => Promise<Buffer>) {
  await take();
  await testInfo.attach(name, { path: testInfo.outputPath(`${name}.png`), contentType: "image/png" });
}

/** The demo job, submitted fresh (a rerun on the same data dir must not inherit its restart budget). */
test.beforeAll(async ({ request }) =>
  resubmitOperatorJob(request, {
    job: { namespace: NAMESPACE, name: JOB },
    yaml: readFileSync("examples/jobs/demo-job.yaml", "utf8"),
  }),
);

test("an engineer injects a crash from the job page and watches the rank recover", async ({
  page,
}, testInfo) => {
  test.setTimeout(120_000);
  await signIn(page, "engineer@rebound.local");
  await expect(page.getByRole("link", { name: JOB })).toBeVisible({ timeout: 30_000 });
  await saveScreenshot(testInfo, "jobs-list", () =>
    page.screenshot({ path: testInfo.outputPath("jobs-list.png"), fullPage: true }),
  );

  const job = new JobPagePo(page);
  await job.goto(NAMESPACE, JOB);
  await expect(page.getByTestId("ranks-healthy")).toHaveText("8/8", { timeout: 60_000 });
  const restartsBefore = await job.timelineEntries().count();

  await job.selectRank(5);
  await expect(job.selectedHealth()).toHaveText("healthy");
  await job.confirm("Inject crash");
  await expect(job.selectedHealth()).toHaveText(/faulted|restarting/, { timeout: 10_000 });
  await expect(job.selectedHealth()).toHaveText("healthy", { timeout: 30_000 });
  await expect(job.timelineEntries()).toHaveCount(restartsBefore + 1, { timeout: 30_000 });
  const entry = job.timelineEntries().last();
  await expect(entry).toContainText("WorkerCrash");
  await expect(entry).toContainText(/detected in \d/);
  await expect(entry).toContainText(/recovered in \d/);
  await saveScreenshot(testInfo, "job-page", () =>
    page.screenshot({ path: testInfo.outputPath("job-page.png"), fullPage: true }),
  );
  await saveScreenshot(testInfo, "timeline", () =>
    page
      .getByRole("region", { name: "Restart timeline" })
      .screenshot({ path: testInfo.outputPath("timeline.png") }),
  );
});

test("a dropped live stream shows Reconnecting, keeps the last data, and comes back", async ({ page }) => {
  test.setTimeout(90_000);
  // Keep a handle on the page's EventSources, so the test can close the live stream's connection.
  await trackEventSources(page);
  await signIn(page, "engineer@rebound.local");
  const job = new JobPagePo(page);
  await job.goto(NAMESPACE, JOB);
  const status = page.getByRole("status").filter({ hasText: /^(Live|Connecting…|Reconnecting…)/ });
  await expect(status).toHaveText("Live", { timeout: 20_000 });
  await expect(page.getByTestId("ranks-healthy")).toHaveText(/\d+\/8/);
  const shown = await page.getByTestId("ranks-healthy").textContent();

  // The server becomes unreachable for the stream: the open connection closes, new ones fail.
  await page.route("**/api/trpc/jobs.watch**", (route) => route.abort("connectionrefused"));
  await closeEventSources(page);
  await expect(status).toContainText("Reconnecting", { timeout: 30_000 });
  await expect(page.getByTestId("ranks-healthy")).toHaveText(shown ?? "");
  await expect(page.getByRole("button", { name: "Select rank 0", exact: true })).toBeVisible();

  await page.unroute("**/api/trpc/jobs.watch**");
  await expect(status).toHaveText("Live", { timeout: 30_000 });
});

test("the cluster page lists the nodes with their GPUs and the jobs on them", async ({ page }) => {
  await signIn(page, "viewer@rebound.local");
  await page.goto("/cluster");
  const row = page.getByRole("row").filter({ hasText: JOB }).first();
  await expect(row).toBeVisible({ timeout: 20_000 });
  await expect(row).toContainText("Schedulable");
  await expect(row.getByRole("link", { name: JOB })).toHaveAttribute("href", `/jobs/${NAMESPACE}/${JOB}`);
});

test("a viewer cannot see restart actions, and the server refuses them", async ({
  page,
  playwright,
  baseURL,
}) => {
  await signIn(page, "viewer@rebound.local");
  const job = new JobPagePo(page);
  await job.goto(NAMESPACE, JOB);
  await expect(page.getByTestId("ranks-healthy")).toHaveText(/\d+\/8/);
  await expect(page.getByRole("button", { name: "Restart job" })).toHaveCount(0);
  await job.selectRank(1);
  await expect(page.getByRole("button", { name: "Restart all ranks in place" })).toHaveCount(0);

  const request = await playwright.request.newContext({ baseURL });
  await trpcMutation(request, "auth.signIn", { email: "viewer@rebound.local", password: "rebound-demo" });
  const refused = await trpcMutation(request, "jobs.act", {
    job: { namespace: NAMESPACE, name: JOB },
    input: { action: "restart-job" },
  });
  expect(refused.status()).toBe(403);
  await request.dispose();
});

test("a Vision engineer neither lists nor opens an LLM Research job, by page or by API", async ({
  page,
  playwright,
  baseURL,
}) => {
  await signIn(page, "vision@rebound.local");
  await expect(page.getByRole("main")).not.toContainText("Loading", { timeout: 20_000 });
  await expect(page.getByRole("link", { name: JOB })).toHaveCount(0);
  await page.goto(`/jobs/${NAMESPACE}/${JOB}`);
  await expect(page.getByRole("alert").filter({ hasText: "Could not load" })).toContainText(
    `job ${NAMESPACE}/${JOB} not found`,
    {
      timeout: 20_000,
    },
  );
  await expect(page.getByTestId("ranks-healthy")).toHaveCount(0);

  const request = await playwright.request.newContext({ baseURL });
  expect(
    (
      await trpcMutation(request, "auth.signIn", { email: "vision@rebound.local", password: "rebound-demo" })
    ).status(),
  ).toBe(200);
  const input = encodeURIComponent(JSON.stringify({ json: { namespace: NAMESPACE, name: JOB } }));
  expect((await request.get(`/api/trpc/jobs.page?input=${input}`)).status()).toBe(404);
  const list = await request.get("/api/trpc/jobs.list");
  expect(list.status()).toBe(200);
  expect(JSON.stringify(await list.json())).not.toContain(JOB);
  await request.dispose();
});

for (const [name, path] of [
  ["jobs list", "/jobs"],
  ["job page", `/jobs/${NAMESPACE}/${JOB}`],
  ["cluster", "/cluster"],
  ["sign-in", "/sign-in"],
] as const) {
  test(`the ${name} has no serious or critical accessibility violations`, async ({ page }) => {
    if (path !== "/sign-in") await signIn(page, "engineer@rebound.local");
    await page.goto(path);
    await page.waitForLoadState("networkidle").catch(() => undefined);
    await expect(page.locator("main")).not.toContainText("Loading", { timeout: 20_000 });
    const results = await new AxeBuilder({ page }).analyze();
    const serious = results.violations.filter(
      (violation) => violation.impact === "serious" || violation.impact === "critical",
    );
    expect(
      serious.map(
        (violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`,
      ),
    ).toEqual([]);
  });
}
