import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { resubmitOperatorJob } from "./fixtures/operator-jobs";
import { JobPagePo, signIn } from "./pages/job-page";

/**
 * A silent rank is visible before its rule fires (issue 32): on the demo job (steps every ~0.2 s, JobHang
 * after 10 s without a step line), a hung rank reads "No progress for N s" in the rank table and the
 * topology from 5 s on (max(3 x its usual interval, 5 s)), while the job has not faulted yet; the rule then
 * fires as before. And at 1,440 x 900 the table's Age column is in view without scrolling.
 */
const NAMESPACE = "hyperpod-ns-llm-research";
const JOB = "demo-llm";
const HUNG_RANK = 6;

test.describe.configure({ mode: "serial" });

test.beforeAll(async ({ request }) =>
  resubmitOperatorJob(request, {
    job: { namespace: NAMESPACE, name: JOB },
    yaml: readFileSync("examples/jobs/demo-job.yaml", "utf8"),
  }),
);

test.use({ viewport: { width: 1440, height: 900 } });

test("at 1440 x 900 the rank table shows Age, Restarts, Rules and Straggler without scrolling", async ({
  page,
}) => {
  await signIn(page, "engineer@rebound.local");
  const job = new JobPagePo(page);
  await job.goto(NAMESPACE, JOB);
  await expect(page.getByTestId("ranks-healthy")).toHaveText("8/8", { timeout: 60_000 });
  await job.rankColumn("Age").scrollIntoViewIfNeeded();
  // ratio 1: wholly visible, neither cut by the table's scroll box nor by the window.
  for (const column of ["Rank", "Health", "Age", "Restarts", "Rules", "Straggler"])
    await expect(job.rankColumn(column)).toBeInViewport({ ratio: 1 });
  await expect(job.rankRow(0).getByRole("cell").nth(2)).toHaveText(/^(just now|\d+ s ago)$/);
  const pageWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(pageWidth).toBeLessThanOrEqual(1440);
});

test("a hung rank shows 'No progress for N s' in the table and topology before its JobHang rule fires", async ({
  page,
}, testInfo) => {
  test.setTimeout(120_000);
  await signIn(page, "engineer@rebound.local");
  const job = new JobPagePo(page);
  await job.goto(NAMESPACE, JOB);
  await expect(page.getByTestId("ranks-healthy")).toHaveText("8/8", { timeout: 60_000 });
  const faultsBefore = await job.timelineEntries().count();

  await job.selectRank(HUNG_RANK);
  await job.confirm("Inject hang");
  const row = job.rankRow(HUNG_RANK);
  await expect(row).toContainText(/No progress for \d+ s/, { timeout: 9_000 });
  // Seen before the rule's 10 s window ran out: no fault recorded, the topology counts it too.
  await expect(job.timelineEntries()).toHaveCount(faultsBefore);
  await expect(job.topology()).toHaveAccessibleName(/1 no progress/);
  const seconds = async () => Number((await row.textContent())?.match(/No progress for (\d+) s/)?.[1] ?? -1);
  const first = await seconds();
  expect(first).toBeGreaterThanOrEqual(5);
  expect(first).toBeLessThan(10);
  // The age counts up live, between live updates.
  await expect.poll(seconds, { timeout: 3_000 }).toBeGreaterThan(first);
  const shot = testInfo.outputPath("no-progress.png");
  await page.screenshot({ path: shot, fullPage: true });
  await testInfo.attach("no-progress", { path: shot, contentType: "image/png" });

  // The fault and its timing stay the log rules': JobHang fires, the rank recovers.
  await expect(job.timelineEntries()).toHaveCount(faultsBefore + 1, { timeout: 30_000 });
  await expect(job.timelineEntries().last()).toContainText("JobHang");
  await expect(page.getByTestId("ranks-healthy")).toHaveText("8/8", { timeout: 60_000 });
  await expect(row).not.toContainText("No progress");
});
