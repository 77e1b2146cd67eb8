import { type APIRequestContext, expect, test } from "@playwright/test";
import { quotaState, quotaUpdate, readQuota, signedInRequest, trpcGet } from "./fixtures/governance-api";
import { deleteJob, submitWideJob, WIDE } from "./fixtures/governance-job";
import { expectNoSeriousA11yViolations, screenshot } from "./fixtures/page-checks";
import { trpcMutation } from "./fixtures/trpc";
import { GovernanceAuditPage, TeamGovernancePage } from "./pages/governance-page";
import { signIn } from "./pages/job-page";

/**
 * Task governance screens against npm start's stack (issue 11): a team admin edits its team's quota with
 * the what-if before saving, and the audit log shows the change; an engineer of that team and an admin of
 * another team see it read-only, and the server refuses their writes with nothing changed.
 */
const TEAM = "llm-research";
const TEAM_NAME = "LLM Research";

test.describe.configure({ mode: "serial" });

type Members = { members: Array<{ userId: string; email: string; role: string }> };

/** The seed has no admin of a second team: vision@ is made Vision's team admin for this file, then put back. */
let admin: APIRequestContext;
let visionUserId = "";
let viewerUserId = "";
test.beforeAll(async ({ playwright, baseURL }) => {
  admin = await signedInRequest({ playwright, baseURL, email: "admin@rebound.local" });
  const vision = await trpcGet<Members>(admin, "governance.members.list", { team: "vision" });
  const member = vision.members.find((candidate) => candidate.email === "vision@rebound.local");
  expect(member, "vision@rebound.local is seeded as a Vision member").toBeDefined();
  visionUserId = member?.userId ?? "";
  const research = await trpcGet<Members>(admin, "governance.members.list", { team: TEAM });
  viewerUserId =
    research.members.find((candidate) => candidate.email === "viewer@rebound.local")?.userId ?? "";
  expect(viewerUserId, "viewer@rebound.local is seeded as an LLM Research member").not.toBe("");
  const promoted = await trpcMutation(admin, "governance.members.setRole", {
    team: "vision",
    userId: visionUserId,
    role: "team_admin",
  });
  expect(promoted.status(), await promoted.text()).toBe(200);
});

test.afterAll(async ({ request }) => {
  await deleteJob(request, WIDE);
  await trpcMutation(admin, "governance.members.setRole", {
    team: "vision",
    userId: visionUserId,
    role: "engineer",
  });
  await trpcMutation(admin, "governance.members.setRole", {
    team: TEAM,
    userId: viewerUserId,
    role: "viewer",
  });
  await admin.dispose();
});

test("a team admin changes the quota, sees the what-if, saves, and the audit log shows it", async ({
  page,
}, testInfo) => {
  const before = await readQuota(admin, TEAM);
  const next = before.borrowLimitPercent === 70 ? 80 : 70;
  await signIn(page, "lead@rebound.local");
  const team = new TeamGovernancePage(page);
  await team.goto(TEAM, TEAM_NAME);
  await expect(team.borrowLimit).toHaveValue(String(before.borrowLimitPercent));

  // Checked as typed, with the router's own schema: the message sits beside the field, and nothing can be
  // reviewed or saved while it stands.
  await team.borrowLimit.fill("0");
  await expect(team.borrowLimit).toHaveAttribute("aria-invalid", "true");
  await expect(team.borrowLimit).toHaveAccessibleDescription("expected a whole percent ≥ 1");
  await expect(team.reviewButton).toBeDisabled();
  await team.guaranteed("nvidia.com/gpu").fill("-2");
  await expect(team.guaranteed("nvidia.com/gpu")).toHaveAccessibleDescription("expected a number ≥ 0");
  await team
    .guaranteed("nvidia.com/gpu")
    .fill(String(before.resources.find((r) => r.resource === "nvidia.com/gpu")?.guaranteed));

  // Kueue's own knobs sit in an "Advanced (Kueue)" section, collapsed, at HyperPod's defaults.
  const reclaim = page.getByLabel("Reclaim within cohort");
  await expect(reclaim).toBeHidden();
  await page.getByText("Advanced (Kueue)").click();
  await expect(reclaim).toHaveValue("Any");

  await team.borrowLimit.fill(String(next));
  await expect(team.borrowLimit).not.toHaveAttribute("aria-invalid", "true");
  await team.reviewButton.click();
  await expect(team.impact).toBeVisible();
  await expect(team.impact).toContainText(/Saving this would preempt/, { timeout: 20_000 });
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, testInfo, "quota-what-if");
  await team.saveButton.click();
  await expect(team.saved).toContainText(`version ${before.version + 1}`, { timeout: 20_000 });

  const after = await readQuota(admin, TEAM);
  expect(after).toMatchObject({ version: before.version + 1, borrowLimitPercent: next });
  expect(after.updatedBy?.name).toBe("Team Lead");

  const audit = new GovernanceAuditPage(page);
  await audit.goto();
  const newest = audit.rows().first();
  await expect(newest).toContainText("Team Lead", { timeout: 20_000 });
  await expect(newest).toContainText(TEAM);
  await expect(newest).toContainText(`borrowLimitPercent ${before.borrowLimitPercent} → ${next}`);
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, testInfo, "audit-log");
});

test("a stale version is refused naming who changed it, and Reload shows their change", async ({ page }) => {
  await signIn(page, "lead@rebound.local");
  const team = new TeamGovernancePage(page);
  await team.goto(TEAM, TEAM_NAME);
  const read = await readQuota(admin, TEAM);
  const theirs = read.fairShareWeight === 55 ? 56 : 55;
  const mine = theirs + 10;
  // The cluster admin saves first, from the version the form was read at.
  const first = await trpcMutation(
    admin,
    "governance.quota.update",
    quotaUpdate(read, { fairShareWeight: theirs }),
  );
  expect(first.status(), await first.text()).toBe(200);

  await team.weight.fill(String(mine));
  await team.reviewButton.click();
  await team.saveButton.click();
  const refusal = team.refusal();
  await expect(refusal).toContainText("Cluster Admin", { timeout: 20_000 });
  await refusal.getByRole("button", { name: "Reload their version" }).click();
  await expect(team.weight).toHaveValue(String(theirs));
  expect((await readQuota(admin, TEAM)).fairShareWeight).toBe(theirs);
});

for (const who of [
  { email: "engineer@rebound.local", role: "an engineer of the team" },
  { email: "vision@rebound.local", role: "an admin of another team" },
] as const) {
  test(`${who.role} cannot change the quota: the UI hides it and the server refuses`, async ({
    page,
    playwright,
    baseURL,
  }) => {
    await signIn(page, who.email);
    await page.goto(`/governance/teams/${TEAM}`);
    const quota = page.getByRole("region", { name: "Compute quota" });
    // Read-only (or, for another team's admin, the page says it is the team's members' only): nothing to edit.
    await expect(page.getByText(/Read only|Only members of llm-research/).first()).toBeVisible({
      timeout: 20_000,
    });
    await expect(quota.getByRole("textbox")).toHaveCount(0);
    await expect(quota.getByRole("button", { name: /Review change|Save quota/ })).toHaveCount(0);
    await expect(page.getByRole("table", { name: "Members" }).getByRole("combobox")).toHaveCount(0);

    const before = await readQuota(admin, TEAM);
    const request = await signedInRequest({ playwright, baseURL, email: who.email });
    const refused = await trpcMutation(
      request,
      "governance.quota.update",
      quotaUpdate(before, {
        borrowLimitPercent: before.borrowLimitPercent === 90 ? 91 : 90,
        fairShareWeight: 1,
      }),
    );
    expect(refused.status(), await refused.text()).toBe(403);
    const role = await trpcMutation(request, "governance.members.setRole", {
      team: TEAM,
      userId: visionUserId,
      role: "team_admin",
    });
    expect(role.status()).toBe(403);
    await request.dispose();
    expect(quotaState(await readQuota(admin, TEAM))).toEqual(quotaState(before));
  });
}

test("an admin of another team edits its own team's quota (the refusal above is about the team)", async ({
  page,
}) => {
  await signIn(page, "vision@rebound.local");
  const team = new TeamGovernancePage(page);
  await team.goto("vision", "Vision");
  await expect(team.borrowLimit).toBeEditable();
  await expect(team.reviewButton).toBeVisible();
});

test("the scheduler config is read-only for a team admin and editable for a cluster admin", async ({
  page,
}) => {
  await signIn(page, "lead@rebound.local");
  await page.goto("/governance/scheduler");
  const section = page.getByRole("region", { name: "Priority classes and policies" });
  await expect(section.getByText("Read only")).toBeVisible({ timeout: 20_000 });
  await expect(section.getByRole("table", { name: "Priority classes" })).toContainText("training");
  await expect(section.getByRole("checkbox")).toHaveCount(0);

  await signIn(page, "admin@rebound.local");
  await page.goto("/governance/scheduler");
  await expect(section.getByRole("checkbox", { name: /Task ranking/ })).toBeVisible({ timeout: 20_000 });
  const weight = section.getByLabel("Weight of training");
  await weight.fill("101");
  await expect(weight).toHaveAccessibleDescription("expected a weight between 0 and 100");
  await expect(section.getByRole("button", { name: "Review change" })).toBeDisabled();
  await expectNoSeriousA11yViolations(page);
});

test("the overview shows each team's capacity now and over time", async ({ page }, testInfo) => {
  await signIn(page, "admin@rebound.local");
  await page.goto("/governance");
  const table = page.getByRole("table", { name: "Team capacity" });
  await expect(table.getByRole("link", { name: TEAM_NAME })).toBeVisible({ timeout: 20_000 });
  await expect(table.getByRole("link", { name: "Vision" })).toHaveAttribute(
    "href",
    "/governance/teams/vision",
  );
  await expect(page.getByRole("region", { name: "Capacity over time" }).getByRole("figure")).toHaveCount(2, {
    timeout: 20_000,
  });
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, testInfo, "overview");
});

test("a job that does not fit waits Pending; the list, its page and the queue say why in numbers, and the what-if of a bigger guarantee would admit it", async ({
  page,
  request,
}, testInfo) => {
  test.setTimeout(120_000);
  await submitWideJob(request);

  await signIn(page, "vision@rebound.local");
  const row = page.getByRole("table", { name: "Jobs" }).getByRole("row").filter({ hasText: WIDE.name });
  await expect(row.getByText("Pending", { exact: true })).toBeVisible({ timeout: 30_000 });

  await page.goto(`/jobs/${WIDE.namespace}/${WIDE.name}`);
  await expect(page.getByTestId("job-status")).toHaveText("Pending", { timeout: 20_000 });
  const why = page.getByRole("region", { name: "Why is it pending?" });
  const missing = why.getByRole("table", { name: `What ${WIDE.namespace}/${WIDE.name} is missing` });
  const gpuRow = missing.getByRole("row").filter({ hasText: "GPUs" });
  await expect(gpuRow.getByRole("cell").nth(2)).toHaveText("16", { timeout: 30_000 });
  await expect(why).toContainText(/position 1 in vision's queue/);
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, testInfo, "job-why-pending");

  const team = new TeamGovernancePage(page);
  await team.goto("vision", "Vision");
  const pending = page.getByRole("table", { name: "Pending jobs" });
  await expect(pending.getByRole("link", { name: WIDE.name })).toBeVisible();
  await pending.getByRole("button", { name: `Why ${WIDE.name} is pending` }).click();
  await expect(page.getByRole("region", { name: `Why ${WIDE.name} is pending` })).toContainText("16");
  await screenshot(page, testInfo, "team-queue");

  await team.guaranteed("nvidia.com/gpu").fill("16");
  await team.reviewButton.click();
  await expect(team.impact.getByRole("list", { name: "Would admit" })).toContainText(
    `${WIDE.namespace}/${WIDE.name}`,
    { timeout: 20_000 },
  );
  await team.quotaSection.getByRole("button", { name: "Keep editing" }).click();
  await expect(team.impact).toHaveCount(0);
});

test("the server names the bad field: removing a priority class a pending job still uses is refused, nothing changed", async ({
  page,
}) => {
  // The Vision job of the test above still waits, naming training-priority.
  type Scheduler = { version: number; priorityClasses: Array<{ name: string; jobs: number }> };
  const before = await trpcGet<Scheduler>(admin, "governance.scheduler.get", undefined);
  expect(before.priorityClasses.find((entry) => entry.name === "training")?.jobs).toBeGreaterThan(0);
  await signIn(page, "admin@rebound.local");
  await page.goto("/governance/scheduler");
  const section = page.getByRole("region", { name: "Priority classes and policies" });
  await section.getByRole("button", { name: "Remove training" }).click();
  await section.getByRole("button", { name: "Review change" }).click();
  await expect(section.getByRole("region", { name: "Impact of this change" })).toContainText(
    /Saving this would|Would admit/,
    { timeout: 20_000 },
  );
  await section.getByRole("button", { name: "Save scheduler config" }).click();
  const refusal = section.getByRole("alert");
  await expect(refusal).toContainText("priority class training is still used by", { timeout: 20_000 });
  await expect(refusal).toContainText(`${WIDE.namespace}/${WIDE.name}`);
  await expect(section.getByRole("table", { name: "Priority classes" })).toHaveAccessibleDescription(
    /priority class training is still used by .*keep it until they finish/,
  );
  const after = await trpcGet<Scheduler>(admin, "governance.scheduler.get", undefined);
  expect(after.version).toBe(before.version);
  expect(after.priorityClasses.map((entry) => entry.name)).toEqual(
    before.priorityClasses.map((entry) => entry.name),
  );
});

test("a team admin changes a member's role in their team, and the audit log shows it", async ({ page }) => {
  await signIn(page, "lead@rebound.local");
  const team = new TeamGovernancePage(page);
  await team.goto(TEAM, TEAM_NAME);
  const role = team.memberRole("Viewer");
  await expect(role).toHaveValue("viewer");
  await expect(role.getByRole("option", { name: "Cluster admin" })).toHaveCount(0);
  await role.selectOption("engineer");
  await expect(role).toHaveValue("engineer");
  await expect
    .poll(async () => {
      const members = await trpcGet<Members>(admin, "governance.members.list", { team: TEAM });
      return members.members.find((member) => member.userId === viewerUserId)?.role;
    })
    .toBe("engineer");

  const audit = new GovernanceAuditPage(page);
  await audit.goto();
  await expect(audit.rows().first()).toContainText("viewer@rebound.local: viewer → engineer", {
    timeout: 20_000,
  });
  await expect(audit.rows().first()).toContainText("Team Lead");

  await team.goto(TEAM, TEAM_NAME);
  await team.memberRole("Viewer").selectOption("viewer");
  await expect
    .poll(async () => {
      const members = await trpcGet<Members>(admin, "governance.members.list", { team: TEAM });
      return members.members.find((member) => member.userId === viewerUserId)?.role;
    })
    .toBe("viewer");
});
