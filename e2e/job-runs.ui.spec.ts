import { expect, test } from "@playwright/test";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { deleteOperatorJob, submitOperatorJob } from "./fixtures/operator-jobs";
import { JobPagePo, signIn } from "./pages/job-page";

/**
 * Issue 36 item 5 as the engineer sees it (npm start's stack, real operator, agents and Chromium): a run
 * deleted while it ran reads "Deleted while Running after 0 restarts" in Past runs; a job that succeeded
 * ends its run at once (Past runs: Succeeded) and its page offers no live-only action (restart job, suspend,
 * restart or replace a rank's pod, inject a fault), with its ranks finished, not "0/1 healthy".
 */
const NAMESPACE = "hyperpod-ns-llm-research";
const JOB = "runs-end-with-the-job";
const ref = { namespace: NAMESPACE, name: JOB };

test("a finished job's page shows it finished, offers Delete only, and Past runs say how runs ended", async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  await signIn(page, "engineer@rebound.local");
  const job = new JobPagePo(page);

  // A first run that never ends on its own, deleted while it runs.
  await deleteOperatorJob(request, ref);
  await submitOperatorJob(request, demoJobYaml({ name: JOB, nodes: 1, ranks: 1, gpusPerPod: 1 }));
  await job.goto(NAMESPACE, JOB);
  await expect(page.getByTestId("job-status")).toHaveText("Running", { timeout: 60_000 });
  await expect(page.getByRole("button", { name: "Restart job" })).toBeVisible();
  await deleteOperatorJob(request, ref);

  // A second that finishes after 30 steps of 100 ms.
  await submitOperatorJob(request, demoJobYaml({ name: JOB, nodes: 1, ranks: 1, gpusPerPod: 1, steps: 30 }));
  await job.goto(NAMESPACE, JOB);
  await expect(page.getByTestId("ranks-finished")).toHaveText("1 finished", { timeout: 90_000 });
  await expect(page.getByTestId("ranks-healthy")).toHaveCount(0);
  const actions = page.getByRole("group", { name: "Job actions" });
  await expect(actions.getByRole("button", { name: "Delete" })).toBeVisible();
  await expect(actions.getByRole("button")).toHaveCount(1);

  await job.selectRank(0);
  await expect(job.selectedHealth()).toHaveText("finished");
  await expect(page.getByRole("button", { name: "Replace this rank's pod" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^Inject/ })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Restart all ranks in place" })).toHaveCount(0);

  const pastRuns = page.getByRole("table", { name: "Past runs" });
  const outcomes = pastRuns.getByRole("row").filter({ has: page.getByRole("cell") });
  // Newest first: the run that just ended (listed without a reload), then the deleted one (a rerun on the
  // same data dir lists older ones below).
  await expect(outcomes.nth(1)).toBeVisible();
  await expect(outcomes.nth(0)).toContainText("Succeeded");
  await expect(outcomes.nth(1)).toContainText("Deleted while Running after 0 restarts");
  await expect(pastRuns).not.toContainText("remediated");

  await outcomes.nth(1).getByRole("link").click();
  await expect(page.getByTestId("run-outcome")).toHaveText("Deleted while Running after 0 restarts");
});
