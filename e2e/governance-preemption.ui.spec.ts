import { type APIRequestContext, expect, test } from "@playwright/test";
import { quotaUpdate, readQuota, signedInRequest, trpcGet } from "./fixtures/governance-api";
import { DEMO_JOB, deleteJob, type JobRef, submitJob, WIDE } from "./fixtures/governance-job";
import { expectNoSeriousA11yViolations, screenshot } from "./fixtures/page-checks";
import { trpcMutation } from "./fixtures/trpc";
import { TeamGovernancePage } from "./pages/governance-page";
import { signIn } from "./pages/job-page";

/**
 * Reclaiming borrowed GPUs, as the console shows it (issue 11): Vision borrows 24 GPUs (8 its own, 8 no
 * team is guaranteed, 8 of LLM Research's idle 16), LLM Research submits a job within its guarantee, and
 * Vision's job is preempted (InCohortReclamation), stopped gracefully and requeued; the queue says by whom
 * and why, and its page why it now waits, in numbers.
 */
const BORROWER: JobRef = { namespace: "hyperpod-ns-vision", name: "e2e-gov-borrower" };
const RECLAIMER: JobRef = { namespace: "hyperpod-ns-llm-research", name: "e2e-gov-reclaimer" };

/** The seed's (and HyperPod's default) borrow limit, put back even after a run that stopped half-way. */
const SEEDED_BORROW_LIMIT = 50;

let admin: APIRequestContext;
test.beforeAll(async ({ playwright, baseURL, request }) => {
  admin = await signedInRequest({ playwright, baseURL, email: "admin@rebound.local" });
  // The cluster's 32 GPUs start free: the jobs spec's demo job goes (that spec submits it afresh anyway).
  for (const job of [DEMO_JOB, WIDE, BORROWER, RECLAIMER]) await deleteJob(request, job);
  const vision = await readQuota(admin, "vision");
  const raised = await trpcMutation(
    admin,
    "governance.quota.update",
    quotaUpdate(vision, { borrowLimitPercent: 500 }),
  );
  expect(raised.status(), await raised.text()).toBe(200);
});

test.afterAll(async ({ request }) => {
  for (const job of [BORROWER, RECLAIMER]) await deleteJob(request, job);
  const now = await readQuota(admin, "vision");
  await trpcMutation(
    admin,
    "governance.quota.update",
    quotaUpdate(now, { borrowLimitPercent: SEEDED_BORROW_LIMIT }),
  );
  await admin.dispose();
});

test("a borrowed job is preempted when its lender reclaims: the queue says by whom and why, and why it waits", async ({
  page,
  request,
}, testInfo) => {
  test.setTimeout(240_000);
  await signIn(page, "vision@rebound.local");
  const team = new TeamGovernancePage(page);
  await submitJob(request, { ...BORROWER, team: "vision", replicas: 3, gpusPerPod: 8 });
  await team.goto("vision", "Vision");
  await team.expectQueueRow("Admitted jobs", BORROWER.name);

  await submitJob(request, { ...RECLAIMER, team: "llm-research", replicas: 2, gpusPerPod: 8 });
  const row = await team.expectQueueRow("Preempted jobs", BORROWER.name, 150_000);
  await expect(row.getByRole("link", { name: `${RECLAIMER.namespace}/${RECLAIMER.name}` })).toBeVisible();
  await expect(row).toContainText("InCohortReclamation");

  // The reclaimer runs, and the borrower is not admitted again while it does (no preemption ping-pong).
  type Queue = { admitted: Array<{ name: string }>; preempted: Array<{ name: string }> };
  await expect
    .poll(
      async () =>
        (await trpcGet<Queue>(admin, "governance.queue", { team: "llm-research" })).admitted.map(
          (job) => job.name,
        ),
      { timeout: 90_000 },
    )
    .toContain(RECLAIMER.name);

  // Once its ranks stopped gracefully it is requeued: Pending, and why it waits is in numbers.
  await page.goto(`/jobs/${BORROWER.namespace}/${BORROWER.name}`);
  await expect(page.getByTestId("job-status")).toHaveText("Pending", { timeout: 60_000 });
  const why = page.getByRole("region", { name: "Why is it pending?" });
  const missing = why.getByRole("table", {
    name: `What ${BORROWER.namespace}/${BORROWER.name} is missing`,
  });
  await expect(missing.getByRole("row").filter({ hasText: "GPUs" }).getByRole("cell").nth(2)).toHaveText(
    "24",
    {
      timeout: 20_000,
    },
  );

  await team.goto("vision", "Vision");
  const requeued = await team.expectQueueRow("Preempted jobs", BORROWER.name);
  await requeued.getByRole("button", { name: `Why ${BORROWER.name} is pending` }).click();
  await expect(page.getByRole("region", { name: `Why ${BORROWER.name} is pending` })).toContainText(
    `${BORROWER.namespace}/${BORROWER.name}`,
  );
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, testInfo, "team-queue-preempted");
  const vision = await trpcGet<Queue>(admin, "governance.queue", { team: "vision" });
  expect(vision.admitted.map((job) => job.name)).not.toContain(BORROWER.name);
});
