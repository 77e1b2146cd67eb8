import { type APIRequestContext, expect, test } from "@playwright/test";
import { quotaState, readQuota, signedInRequest, trpcGet } from "./fixtures/governance-api";
import { trpcMutation } from "./fixtures/trpc";
import { TeamGovernancePage } from "./pages/governance-page";
import { signIn } from "./pages/job-page";

/**
 * Issue 34, item 5, as a team admin sees it: a guarantee past the cluster's GPUs is said so by the what-if
 * and saves only with "Allow over-commit" ticked; a member is removed from the members table (and put back
 * by a cluster admin, the only one who adds users to a team).
 */
const TEAM = "llm-research";
const TEAM_NAME = "LLM Research";

test.describe.configure({ mode: "serial" });

type Members = { members: Array<{ userId: string; email: string; role: string }> };

let admin: APIRequestContext;
test.beforeAll(async ({ playwright, baseURL }) => {
  admin = await signedInRequest({ playwright, baseURL, email: "admin@rebound.local" });
});

test.afterAll(async () => {
  await admin.dispose();
});

test("a guarantee past the cluster's GPUs needs the over-commit box ticked before it can be saved", async ({
  page,
}) => {
  const before = await readQuota(admin, TEAM);
  await signIn(page, "lead@rebound.local");
  const team = new TeamGovernancePage(page);
  await team.goto(TEAM, TEAM_NAME);
  await team.guaranteed("nvidia.com/gpu").fill("1000");
  await team.reviewButton.click();
  await expect(team.impact).toContainText(
    /Over-commit: llm-research: guaranteed nvidia\.com\/gpu 1000 would over-commit the cluster: .* the cluster has \d+/,
    { timeout: 20_000 },
  );
  const allow = team.quotaSection.getByRole("checkbox", { name: /Allow over-commit/ });
  await expect(team.saveButton).toBeDisabled();
  await allow.check();
  await expect(team.saveButton).toBeEnabled();
  await allow.uncheck();
  await expect(team.saveButton).toBeDisabled();
  // Nothing saved: the quota is as it was.
  await team.quotaSection.getByRole("button", { name: "Keep editing" }).click();
  expect(quotaState(await readQuota(admin, TEAM))).toEqual(quotaState(before));
});

test("a team admin removes a member after confirming; a cluster admin adds them back", async ({ page }) => {
  const listed = await trpcGet<Members>(admin, "governance.members.list", { team: TEAM });
  const viewer = listed.members.find((member) => member.email === "viewer@rebound.local");
  expect(viewer, "viewer@rebound.local is seeded as an LLM Research member").toBeDefined();
  await signIn(page, "lead@rebound.local");
  const team = new TeamGovernancePage(page);
  await team.goto(TEAM, TEAM_NAME);
  const members = page.getByRole("table", { name: "Members" });
  // The last team admin has no Remove button (the server refuses it too).
  await expect(members.getByRole("button", { name: "Remove Team Lead" })).toHaveCount(0);
  await members.getByRole("button", { name: "Remove Viewer" }).click();
  await members.getByRole("button", { name: "Confirm removal of Viewer" }).click();
  await expect(members.getByRole("row").filter({ hasText: "viewer@rebound.local" })).toHaveCount(0, {
    timeout: 20_000,
  });
  const after = await trpcGet<Members>(admin, "governance.members.list", { team: TEAM });
  expect(after.members.map((member) => member.email)).not.toContain("viewer@rebound.local");

  const back = await trpcMutation(admin, "governance.members.setRole", {
    team: TEAM,
    userId: viewer?.userId,
    role: viewer?.role,
    previousRole: null,
  });
  expect(back.status(), await back.text()).toBe(200);
});
