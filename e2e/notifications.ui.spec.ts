import { expect, test } from "@playwright/test";
import { type Receiver, startReceiver } from "@/server/services/notifications/testing/receiver";
import { signIn } from "./pages/job-page";

/**
 * A team's notifications page against npm start's stack (issue 38): a team admin adds a Slack channel
 * pointing at a receiver this spec starts, sends a test, and sees the delivery in the log; the URL is not
 * shown again once saved.
 */
const TEAM = "llm-research";
let receiver: Receiver;

test.beforeAll(async () => {
  receiver = await startReceiver();
});

test.afterAll(async () => {
  await receiver.close();
});

test("a team admin adds a channel, sends a test, and sees the delivery in the log", async ({ page }) => {
  const name = `e2e-${Date.now().toString(36)}`;
  const url = `${receiver.url}/services/T0/B0/e2e-secret-path`;
  await signIn(page, "lead@rebound.local");
  await page.goto(`/governance/teams/${TEAM}/notifications`);
  await expect(page.getByRole("heading", { name: `Notifications: ${TEAM}` })).toBeVisible();
  const form = page.getByRole("form", { name: "Add channel" });
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Format").selectOption("slack");
  await form.getByLabel("Webhook URL").fill(url);
  await form.getByRole("button", { name: "Add channel" }).click();
  const card = page.getByRole("region", { name: `Channel ${name}` });
  await expect(card).toContainText("…path");
  await expect(page.getByText("e2e-secret-path")).toHaveCount(0);
  await card.getByRole("button", { name: "Send test" }).click();
  await expect(card.getByRole("status")).toHaveText("Test sent.");
  expect(receiver.requests).toHaveLength(1);
  expect(receiver.requests[0]?.path).toBe("/services/T0/B0/e2e-secret-path");
  expect(receiver.requests[0]?.body).toMatchObject({
    text: `[Rebound] Test notification: A test notification from Rebound for team ${TEAM}`,
  });
  const log = page.getByRole("table", { name: "Deliveries" });
  await expect(log.getByRole("row").filter({ hasText: name })).toContainText("sent");
  await card.getByRole("button", { name: "Delete channel" }).click();
  await expect(card).toHaveCount(0);
});
