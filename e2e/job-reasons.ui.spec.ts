import { expect, test } from "@playwright/test";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { resubmitOperatorJob } from "./fixtures/operator-jobs";
import { JobPagePo, signIn } from "./pages/job-page";

/**
 * Issue 36 item 7 as the engineer sees it (npm start's stack, real operator, agents and Chromium): a job
 * whose agent exits at start shows its back-off as a state of its own with the time to the next try, then
 * fails with its reason in the jobs list (one line) and in the job page's header (whole, said once); the
 * list and the header show the same ranks, restarts and status; the name never breaks mid-word.
 */
const NAMESPACE = "hyperpod-ns-llm-research";
const JOB = "reasons-agent-exits-at-start";

test.describe.configure({ mode: "serial" });

// Limit 3: the first exit is tried again at once, the next two after 10 s and 20 s back-offs, the fourth fails
// the job (about 35 s: time for the list to show a back-off).
test.beforeAll(async ({ request }) =>
  resubmitOperatorJob(request, {
    job: { namespace: NAMESPACE, name: JOB },
    yaml: demoJobYaml({
      name: JOB,
      nodes: 1,
      ranks: 1,
      gpusPerPod: 1,
      annotations: { "rebound.dev/max-restarts-without-progress": "3" },
    }).replace('"--server-port"', '"--no-such-flag", "--server-port"'),
  }),
);

test("a back-off, then the failure's reason, agree between the jobs list and the job page", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await signIn(page, "engineer@rebound.local");
  const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: JOB, exact: true }) });
  // The back-off: its own state, with the time to the next try.
  await expect(row.getByRole("cell").nth(1)).toContainText(/BackOff\s*next try in \d+ s/, {
    timeout: 30_000,
  });

  await expect(row.getByRole("cell").nth(1)).toHaveText("Failed", { timeout: 60_000 });
  const reasonCell = row.getByRole("cell").nth(2);
  await expect(reasonCell).toContainText(/^CrashLoop: 3 restarts in a row without progress/);
  await expect(reasonCell).not.toContainText("CrashLoop: CrashLoop");
  // One line in the table (the agent's multi-line output flattened); the whole text in its title.
  expect(await reasonCell.textContent()).not.toContain("\n");
  await expect(reasonCell.locator("[title]")).toHaveAttribute("title", /unknown flag/);
  // The name is one unbroken line: an inline link that wrapped would have several boxes.
  const link = row.getByRole("link", { name: JOB, exact: true });
  expect(await link.evaluate((element) => element.getClientRects().length)).toBe(1);
  const listRanks = (await row.getByRole("cell").nth(7).textContent()) ?? "";
  const listRestarts = (await row.getByRole("cell").nth(8).textContent()) ?? "";
  expect(listRestarts).toBe("0/3/0");

  const job = new JobPagePo(page);
  await job.goto(NAMESPACE, JOB);
  await expect(page.getByTestId("job-status")).toHaveText("Failed", { timeout: 20_000 });
  const reason = page.getByTestId("job-reason");
  await expect(reason).toContainText("CrashLoop: 3 restarts in a row without progress");
  await expect(reason).toContainText("unknown flag");
  await expect(reason).not.toContainText("CrashLoop: CrashLoop");
  // Every number both show comes from one source: the same here as in the list.
  expect(listRanks).toBe("1 finished");
  await expect(page.getByTestId("ranks-finished")).toHaveText(listRanks);
  await expect(page.getByTestId("job-restarts")).toHaveText(listRestarts);
  // Four exits, four faults (three folded into one record with a count, and the failure).
  const totals = page.getByLabel("Recovery totals");
  await expect(
    totals
      .locator("div")
      .filter({ hasText: /^Faults/ })
      .locator("dd"),
  ).toHaveText("4");
  // The header's name stays on one line.
  const heading = page.getByRole("heading", { level: 1, name: JOB });
  expect(await heading.evaluate((element) => element.scrollHeight <= element.clientHeight + 1)).toBe(true);
});
