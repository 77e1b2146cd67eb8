import { mkdirSync } from "node:fs";
import path from "node:path";
import type { APIRequestContext, Page } from "@playwright/test";
import { deleteJob, type JobRef, submitJob } from "./fixtures/governance-job";
import { ensurePolicy } from "./fixtures/policy-api";
import { expect, test, trpcMutation, trpcQuery } from "./fixtures/trpc";
import { measureScreen } from "./fixtures/tv-screen";
import { JobPagePo, signIn } from "./pages/job-page";

/**
 * The README's screenshots, taken at 1920×1080 from the real stack: the job page of a running job (after
 * one crash, so its restart chart and timeline have something to show), a team's governance page, and each
 * TV view. Written to docs/screenshots/ (committed; rerun this spec to refresh them). On the way it checks
 * what the pictures would show wrong: the Restarts chart draws steps (never a diagonal), a job that has not
 * started reads "—" for goodput on the TV, and a version diff shows a long changed value whole.
 */
const SHOTS = path.resolve("docs/screenshots");
const SIZE = { width: 1920, height: 1080 };
const RUNNING: JobRef = { namespace: "hyperpod-ns-llm-research", name: "e2e-shots-llm" };
/** More than Vision's 8 guaranteed GPUs and its borrow limit: stays pending. */
const PENDING: JobRef = { namespace: "hyperpod-ns-vision", name: "e2e-shots-waiting" };
const TV_VIEWS = ["cluster", "jobs", "reliability", "incidents"] as const;

test.describe.configure({ mode: "serial" });
test.use({ viewport: SIZE });

test.beforeAll(async ({ playwright, baseURL }) => {
  mkdirSync(SHOTS, { recursive: true });
  const request = await playwright.request.newContext({ baseURL });
  await submitJob(request, { ...RUNNING, team: "llm-research", replicas: 2, gpusPerPod: 4 });
  await submitJob(request, { ...PENDING, team: "vision", replicas: 2, gpusPerPod: 8 });
  await request.dispose();
});

test.afterAll(async ({ playwright, baseURL }) => {
  const request = await playwright.request.newContext({ baseURL });
  await deleteJob(request, RUNNING);
  await deleteJob(request, PENDING);
  await request.dispose();
});

const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`) });

async function waitUntilStepping(admin: APIRequestContext, job: JobRef) {
  type Row = JobRef & { phase: string; ranksHealthy: number; ranksTotal: number };
  await expect
    .poll(
      async () => {
        const row = (await trpcQuery<Row[]>(admin, "jobs.list")).find(
          (r) => r.namespace === job.namespace && r.name === job.name,
        );
        return row && row.ranksTotal > 0 && row.ranksHealthy === row.ranksTotal ? row.phase : "not yet";
      },
      { timeout: 90_000 },
    )
    .toBe("Running");
}

/** The (x, y) vertices of an SVG path's `d` (recharts writes M/L commands with absolute coordinates). */
function vertices(d: string): Array<[number, number]> {
  const numbers = (d.match(/-?\d+(\.\d+)?(e-?\d+)?/g) ?? []).map(Number);
  const points: Array<[number, number]> = [];
  for (let i = 0; i + 1 < numbers.length; i += 2) points.push([numbers[i] ?? 0, numbers[i + 1] ?? 0]);
  return points;
}

/** The segments of a drawn line that are neither horizontal nor vertical, as "x,y" of their ends. */
function diagonals(d: string): string[] {
  const points = vertices(d);
  return points
    .slice(1)
    .filter(([x, y], i) => {
      const [px, py] = points[i] ?? [x, y];
      return Math.abs(x - px) > 0.5 && Math.abs(y - py) > 0.5;
    })
    .map(([x, y]) => `${x},${y}`);
}

test("the job page of a running job after a crash: the Restarts chart steps up, never a diagonal", async ({
  page,
  adminRequest,
}) => {
  test.setTimeout(180_000);
  await waitUntilStepping(adminRequest, RUNNING);
  // The job is shared with other specs: the list can read all ranks healthy while rank 0 is still coming back
  // from an earlier fault, and the operator then answers 409 (no running process to crash). Try again until
  // rank 0 has a process; any other answer fails at once.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const crash = await trpcMutation(adminRequest, "jobs.act", {
      job: RUNNING,
      input: { action: "inject-fault", kind: "crash", rank: 0 },
    });
    if (crash.status() === 409 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      continue;
    }
    expect(crash.status(), await crash.text()).toBe(200);
    break;
  }
  await waitUntilStepping(adminRequest, RUNNING);

  await signIn(page, "admin@rebound.local");
  const job = new JobPagePo(page);
  await job.goto(RUNNING.namespace, RUNNING.name);
  const restarts = page.getByRole("region", { name: "Restarts", exact: true });
  // The count's line, once the restart is recorded: every segment horizontal or vertical.
  const line = restarts.locator("path.recharts-line-curve").first();
  await expect(line).toBeVisible({ timeout: 60_000 });
  const d = (await line.getAttribute("d")) ?? "";
  expect(vertices(d).length, d).toBeGreaterThanOrEqual(3);
  expect(diagonals(d), `segments of ${d}`).toEqual([]);
  // Ranks running is a level held between samples: steps too (the crash took it down and back).
  const ranks =
    (await page
      .getByRole("region", { name: "Ranks running", exact: true })
      .locator("path.recharts-line-curve")
      .first()
      .getAttribute("d")) ?? "";
  expect(diagonals(ranks), `segments of ${ranks}`).toEqual([]);
  // At 1080p every column of the rank table is in view, and its box is as tall as its two rows.
  const box = page.getByRole("table", { name: /^Per-rank health/ }).locator("xpath=..");
  const fit = await box.evaluate((element) => ({
    sideways: element.scrollWidth - element.clientWidth,
    empty: element.clientHeight - (element.querySelector("table")?.getBoundingClientRect().height ?? 0),
  }));
  expect(fit.sideways, "the rank table scrolls sideways at 1920 px").toBeLessThanOrEqual(0);
  expect(fit.empty, "empty space under the rank table's rows (px)").toBeLessThanOrEqual(20);
  // A picture worth keeping: the throughput line has a few samples, not a lone dot.
  const throughput = page
    .getByRole("region", { name: "Throughput", exact: true })
    .locator("path.recharts-line-curve")
    .first();
  await expect
    .poll(
      async () =>
        vertices((await throughput.getAttribute("d", { timeout: 1000 }).catch(() => null)) ?? "").length,
      {
        timeout: 60_000,
      },
    )
    .toBeGreaterThanOrEqual(4);
  await shoot(page, "job-page");
  // The charts, from the top of their grid (the restart chart among them).
  await page
    .getByRole("region", { name: "Throughput", exact: true })
    .evaluate((chart) => chart.scrollIntoView({ block: "start" }));
  await shoot(page, "job-page-charts");
});

test("a team's governance page", async ({ page }) => {
  await signIn(page, "admin@rebound.local");
  await page.goto("/governance/teams/llm-research");
  await expect(page.getByRole("heading", { level: 1, name: "LLM Research" })).toBeVisible();
  await expect(page.getByRole("region", { name: "Compute quota" }).getByText(/^Version \d+/)).toBeVisible({
    timeout: 20_000,
  });
  await shoot(page, "governance");
});

test("a version diff shows a long changed value whole, wrapped inside the card", async ({
  page,
  adminRequest,
}) => {
  type Team = { id: string; name: string };
  const teams = await trpcQuery<Team[]>(adminRequest, "teams.list");
  const teamId = teams.find((team) => team.name === "llm-research")?.id ?? "";
  const rule = (pattern: string) => `jobMaxRetryCount: 5
restartPolicy:
  numRestartBeforeFullJobRestart: 3
  evalPeriodSeconds: 1800
  maxFullJobRestarts: 2
logMonitoringConfiguration:
  - name: KnownFatal
    logPattern: "${pattern}"
    faultOnMatch: true
`;
  const long = `.*(${Array.from({ length: 14 }, (_, i) => `fatal error number ${i} in the data loader`).join("|")}).*`;
  const name = "e2e-shots-long-values";
  await ensurePolicy(adminRequest, { teamId, name, yaml: rule(".*CUDA error.*") });
  const { id } = await ensurePolicy(adminRequest, { teamId, name, yaml: rule(long) });

  await signIn(page, "admin@rebound.local");
  await page.goto(`/policies/${id}`);
  const diff = page.getByRole("list", { name: /^Changes from version \d+ to version \d+$/ });
  await expect(diff).toBeVisible({ timeout: 20_000 });
  const added = diff.getByRole("listitem").filter({ hasText: "fatal error number 13" });
  await expect(added).toContainText("added");
  const fit = await diff.evaluate((list) => {
    const box = list.getBoundingClientRect();
    const item = [...list.querySelectorAll("li")].find((li) => li.textContent?.includes("number 13"));
    const range = document.createRange();
    if (item?.lastElementChild) range.selectNodeContents(item.lastElementChild);
    const text = range.getBoundingClientRect();
    return { scrolls: list.scrollWidth > list.clientWidth, textInside: text.right <= box.right + 1 };
  });
  expect(fit).toEqual({ scrolls: false, textInside: true });
});

test("each TV view at 1080p, with a job that has not started yet showing — for goodput", async ({
  adminRequest,
  browser,
}) => {
  test.setTimeout(120_000);
  const created = await trpcMutation(adminRequest, "shareTokens.create", {
    label: "e2e screenshots",
    views: [...TV_VIEWS],
    allTeams: true,
    teamIds: [],
    pairing: false,
  });
  expect(created.status(), await created.text()).toBe(200);
  const { secret } = ((await created.json()) as { result: { data: { json: { secret: string } } } }).result
    .data.json;
  for (const view of TV_VIEWS) {
    const context = await browser.newContext({ viewport: SIZE });
    const page = await context.newPage();
    await page.goto(`/tv/${view}?token=${secret}`);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expect(page.getByText("Connecting…")).toHaveCount(0);
    if (view === "jobs") {
      const waiting = page.getByRole("row").filter({ hasText: PENDING.name });
      await expect(waiting.getByRole("cell").nth(2)).toHaveText("Pending");
      // Neither its healthy ranks nor its goodput apply before it starts.
      await expect(waiting.getByRole("cell").nth(3)).toHaveText("—");
      await expect(waiting.getByRole("cell").last()).toHaveText("—");
    }
    if (view === "cluster") {
      // The tile's GPUs in use are the bars' sum (and the "more teams" line's, when there is one).
      const tile = Number(await page.getByRole("definition").last().textContent());
      const bars = await page
        .getByText(/^\d+( \/ \d+)? GPUs/)
        .allTextContents()
        .then((texts) => texts.reduce((sum, text) => sum + Number(text.split(" ")[0]), 0));
      expect(tile).toBeGreaterThan(0);
      expect(bars).toBe(tile);
    }
    const measured = await measureScreen(page, 28);
    expect(measured.small, view).toEqual([]);
    await shoot(page, `tv-${view}`);
    await context.close();
  }
});
