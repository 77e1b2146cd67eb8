import { type APIRequestContext, expect, type Page, type TestInfo, test } from "@playwright/test";
import { quotaUpdate, readQuota, signedInRequest } from "./fixtures/governance-api";
import { deleteJob, type JobRef, submitJob } from "./fixtures/governance-job";
import { expectNoSeriousA11yViolations, screenshot } from "./fixtures/page-checks";
import { ensurePolicy } from "./fixtures/policy-api";
import { trpcMutation, trpcQuery } from "./fixtures/trpc";
import { JobPagePo, signIn } from "./pages/job-page";

/**
 * The team admin's view and the console's edges (issue 36, items 9 and 10): an audit row that says what
 * changed (16 → 32) arriving by itself; no link to a page that answers 403; no "Try again" on a permanent
 * error; a styled 404; a favicon; a light theme that follows the system and passes axe like the dark one.
 */
const TEAM = "llm-research";
const GPU = "nvidia.com/gpu";
/** A job of LLM Research's for the light job page: one pod, one GPU, deleted after. */
const LIGHT_JOB: JobRef = { namespace: `hyperpod-ns-${TEAM}`, name: "e2e-light-job" };
/** A policy whose page has an editor, a form and its rules (one log rule among them). */
const LIGHT_POLICY = `jobMaxRetryCount: 5
restartPolicy:
  numRestartBeforeFullJobRestart: 3
  evalPeriodSeconds: 1800
  maxFullJobRestarts: 2
logMonitoringConfiguration:
  - name: KnownFatal
    logPattern: ".*CUDA error.*"
    faultOnMatch: true
`;

test.describe.configure({ mode: "serial" });

let admin: APIRequestContext;
let guaranteedBefore: number | null = null;

test.beforeAll(async ({ playwright, baseURL }) => {
  admin = await signedInRequest({ playwright, baseURL, email: "admin@rebound.local" });
});

test.afterAll(async () => {
  // The team's GPUs as they were, for the files that run after this one.
  if (guaranteedBefore !== null) await setGuaranteedGpus(guaranteedBefore);
  await admin.dispose();
});

/** The LLM team's guaranteed GPUs set through the API as a cluster admin (another browser, as it were). */
async function setGuaranteedGpus(gpus: number) {
  const quota = await readQuota(admin, TEAM);
  const resources = quota.resources.map((row) => (row.resource === GPU ? { ...row, guaranteed: gpus } : row));
  const response = await trpcMutation(admin, "governance.quota.update", {
    ...quotaUpdate(quota, { resources }),
    allowOvercommit: true,
  });
  expect(response.status(), await response.text()).toBe(200);
}

const governanceNav = (page: Page) => page.getByRole("navigation", { name: "Governance" });

test("a team admin's audit log shows a quota change as 16 → 32, pushed without a reload", async ({
  page,
}, testInfo) => {
  await signIn(page, "lead@rebound.local");
  await page.goto("/governance");
  await governanceNav(page).getByRole("link", { name: "Audit log" }).click();
  await expect(page.getByRole("heading", { name: "Governance audit log", level: 1 })).toBeVisible();
  await expect(page.getByRole("button", { name: /Refresh/ })).toHaveCount(0);
  const table = page.getByRole("table", { name: "Governance audit log" });
  await expect(table.or(page.getByText("No governance change yet."))).toBeVisible({ timeout: 20_000 });

  const quota = await readQuota(admin, TEAM);
  const before = quota.resources.find((row) => row.resource === GPU)?.guaranteed ?? 0;
  guaranteedBefore = before;
  const after = before * 2 || 32;
  await setGuaranteedGpus(after);

  // No click, no reload: the server pushes the change and the list fetches again.
  const newest = table
    .getByRole("row")
    .filter({ has: page.getByRole("cell") })
    .first();
  await expect(newest).toContainText(
    new RegExp(`\\[${GPU.replace(".", "\\.")} on [^\\]]+\\]\\.guaranteed ${before} → ${after}`),
    {
      timeout: 15_000,
    },
  );
  await expect(newest).toContainText("Cluster Admin");
  await expect(newest).not.toContainText("resources changed");
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, testInfo, "audit-log-pushed");
});

test("an engineer is offered no link that answers 403, and a refused page offers no Try again", async ({
  page,
}) => {
  await signIn(page, "engineer@rebound.local");
  await page.goto("/governance");
  const teams = page.getByRole("table", { name: "Team capacity" });
  await expect(teams.getByRole("link", { name: "LLM Research" })).toBeVisible({ timeout: 20_000 });
  // Vision's page is for its members: its name is there, not as a link.
  await expect(teams.getByRole("cell", { name: "Vision", exact: true })).toBeVisible();
  await expect(teams.getByRole("link", { name: "Vision" })).toHaveCount(0);
  await expect(governanceNav(page).getByRole("link", { name: "Scheduler" })).toBeVisible();
  await expect(governanceNav(page).getByRole("link", { name: "Audit log" })).toHaveCount(0);

  // Typed in anyway: each page says who may see it, once, with nothing to try again.
  await page.goto("/governance/audit");
  await expect(page.getByText("Only team admins and cluster admins see the audit log.")).toBeVisible({
    timeout: 20_000,
  });
  await page.goto("/governance/teams/vision");
  await expect(page.getByText("Only members of vision and cluster admins see this team's page.")).toBeVisible(
    {
      timeout: 20_000,
    },
  );
  await expect(page.getByRole("region", { name: "Compute quota" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Try again" })).toHaveCount(0);
});

test("a team that does not exist is a 404 said once, with no Try again", async ({ page }) => {
  await signIn(page, "admin@rebound.local");
  await page.goto("/governance/teams/no-such-team");
  const quota = page.getByRole("region", { name: "Compute quota" });
  await expect(quota.getByRole("alert")).toContainText("team: no team named no-such-team", {
    timeout: 20_000,
  });
  await expect(quota.getByRole("button", { name: "Try again" })).toHaveCount(0);
});

test("an unknown URL gets the console's own 404 page; every page has a favicon", async ({
  page,
  request,
}, testInfo) => {
  const response = await page.goto("/no-such-page");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page not found", level: 1 })).toBeVisible();
  // The console's frame and colours, not the framework's white page.
  await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
  await expect(page.locator("body")).toHaveCSS("background-color", "rgb(15, 20, 25)");
  await page.getByRole("link", { name: "Go to the overview" }).click();
  await expect(page).toHaveURL(/\/$/);
  await page.goto("/no-such-page");
  await expect(page.getByRole("heading", { name: "Page not found", level: 1 })).toBeVisible();
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, testInfo, "not-found-dark");

  const favicon = await request.get("/favicon.ico");
  expect(favicon.status()).toBe(200);
  expect(favicon.headers()["content-type"]).toMatch(/image\/(x-icon|vnd\.microsoft\.icon)/);
  const icon = page.locator('link[rel="icon"][type="image/svg+xml"]');
  const href = await icon.getAttribute("href");
  expect(href).toMatch(/^\/icon\.svg/);
  const svg = await request.get(href ?? "/icon.svg");
  expect(svg.status()).toBe(200);
  expect(svg.headers()["content-type"]).toContain("image/svg+xml");
});

test.describe("the light theme, when the system prefers it", () => {
  test.use({ colorScheme: "light" });

  for (const [name, path, email] of [
    ["sign-in", "/sign-in", null],
    ["not-found page", "/no-such-page", null],
    ["governance overview", "/governance", "lead@rebound.local"],
    ["audit log", "/governance/audit", "lead@rebound.local"],
    ["team page", `/governance/teams/${TEAM}`, "lead@rebound.local"],
    ["jobs list", "/jobs", "engineer@rebound.local"],
  ] as const) {
    test(`the ${name} is light and has no serious or critical axe finding`, async ({ page }, testInfo) => {
      if (email) await signIn(page, email);
      await page.goto(path);
      await expectLightAndClean(page, testInfo, name);
    });
  }

  test("the job page of a running job is light and has no serious or critical axe finding", async ({
    page,
  }, testInfo) => {
    test.setTimeout(150_000);
    await submitJob(admin, { ...LIGHT_JOB, team: TEAM, replicas: 1, gpusPerPod: 1 });
    try {
      await signIn(page, "lead@rebound.local");
      await new JobPagePo(page).goto(LIGHT_JOB.namespace, LIGHT_JOB.name);
      // Running, so the rank table, topology and charts are all on the page axe reads.
      await expect(page.getByTestId("ranks-healthy")).toHaveText("1/1", { timeout: 90_000 });
      await expectLightAndClean(page, testInfo, "job page");
    } finally {
      await deleteJob(admin, LIGHT_JOB);
    }
  });

  test("a policy's page (editor, form and versions) is light and has no serious or critical axe finding", async ({
    page,
  }, testInfo) => {
    const teamId = (await trpcQuery<Array<{ id: string; name: string }>>(admin, "teams.list")).find(
      (team) => team.name === TEAM,
    )?.id;
    expect(teamId).toBeDefined();
    const { id } = await ensurePolicy(admin, {
      teamId: teamId ?? "",
      name: "e2e-light-theme",
      yaml: LIGHT_POLICY,
    });
    await signIn(page, "lead@rebound.local");
    await page.goto(`/policies/${id}`);
    await expect(page.getByRole("heading", { level: 1, name: "e2e-light-theme" })).toBeVisible({
      timeout: 20_000,
    });
    await expectLightAndClean(page, testInfo, "policy page");
  });
});

/** The page in the light theme, loaded, with no serious axe finding; a full-page screenshot kept. */
async function expectLightAndClean(page: Page, testInfo: TestInfo, name: string) {
  await expect(page.locator("body")).toHaveCSS("background-color", "rgb(246, 248, 250)");
  await expect(page.locator("main")).not.toContainText("Loading", { timeout: 20_000 });
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, testInfo, `light-${name.replaceAll(" ", "-")}`);
}
