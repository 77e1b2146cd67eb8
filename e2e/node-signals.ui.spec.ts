import { type APIRequestContext, expect, test } from "@playwright/test";
import { signedInRequest, trpcGet } from "./fixtures/governance-api";
import { expectNoSeriousA11yViolations } from "./fixtures/page-checks";
import { trpcMutation } from "./fixtures/trpc";
import { signIn } from "./pages/job-page";

/**
 * The node-signal table's console page against npm start's stack (issue 33): a cluster admin turns on "a
 * cordon alone moves running pods" from the cluster page, and the change is stored (the cordon row's action)
 * and audited with who made it; a team admin sees the table read-only, and the server refuses their write
 * with nothing changed.
 */
test.describe.configure({ mode: "serial" });

type Rule = { id: string; action: string };
type View = {
  version: number;
  isDefault: boolean;
  cordonMovesPods: boolean;
  rules: Rule[];
  updatedBy: { name: string } | null;
  history: Array<{ action: string; actor: { name: string } | null }>;
};

const readSignals = (request: APIRequestContext) => trpcGet<View>(request, "nodeSignals.get", undefined);
const cordonAction = (view: View) => view.rules.find((rule) => rule.id === "kubernetes-cordon")?.action;

let admin: APIRequestContext;

/** Back to the shipped table, so each run (and the next file) starts from the defaults. */
async function resetTable() {
  const view = await readSignals(admin);
  if (view.isDefault) return;
  const reset = await trpcMutation(admin, "nodeSignals.reset", { version: view.version });
  expect(reset.status(), await reset.text()).toBe(200);
}

test.beforeAll(async ({ playwright, baseURL }) => {
  admin = await signedInRequest({ playwright, baseURL, email: "admin@rebound.local" });
  await resetTable();
});

test.afterAll(async () => {
  await resetTable();
  await admin.dispose();
});

test("a cluster admin turns the cordon toggle on: stored, audited, shown with who changed it", async ({
  page,
}) => {
  await signIn(page, "admin@rebound.local");
  await page.goto("/cluster");
  await page.getByRole("link", { name: "Node signals" }).click();
  await expect(page.getByRole("heading", { name: "Node signals", level: 1 })).toBeVisible();
  const table = page.getByRole("table", { name: "Node signals" });
  await expect(table.getByRole("row", { name: /kubernetes-cordon/ })).toContainText("avoid");
  await expect(table.getByRole("row", { name: /hyperpod-node-health/ })).toContainText("replace-now");
  await expectNoSeriousA11yViolations(page);

  const toggle = page.getByRole("checkbox", { name: "A cordon alone moves running pods" });
  await expect(toggle).not.toBeChecked();
  // The box shows the stored state: it turns checked once the server has saved the change.
  await toggle.click();
  await expect(page.getByText("On: the job pods on a cordoned node are replaced now.")).toBeVisible();
  await expect(toggle).toBeChecked();
  await expect(table.getByRole("row", { name: /kubernetes-cordon/ })).toContainText("replace-now");
  const who = (await readSignals(admin)).updatedBy?.name ?? "";
  await expect(page.getByText(new RegExp(`last changed by ${who} at `))).toBeVisible();
  await expect(page.getByRole("list", { name: "Recent node-signal changes" })).toContainText(
    `${who} set the cordon toggle`,
  );

  const stored = await readSignals(admin);
  expect(stored).toMatchObject({ isDefault: false, cordonMovesPods: true });
  expect(cordonAction(stored)).toBe("replace-now");
  expect(stored.history[0]).toMatchObject({ action: "nodeSignals.cordon", actor: { name: who } });
});

test("a team admin sees the table read-only, and the server refuses their change", async ({
  page,
  playwright,
  baseURL,
}) => {
  const before = await readSignals(admin);
  await signIn(page, "lead@rebound.local");
  await page.goto("/cluster/node-signals");
  await expect(page.getByText("Only a cluster admin can change the node-signal table.")).toBeVisible();
  await expect(page.getByRole("checkbox", { name: "A cordon alone moves running pods" })).toBeDisabled();
  await expect(page.getByLabel("Node-signal table (YAML)")).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Reset to defaults" })).toHaveCount(0);

  const lead = await signedInRequest({ playwright, baseURL, email: "lead@rebound.local" });
  const refused = await trpcMutation(lead, "nodeSignals.setCordon", {
    version: before.version,
    movesPods: !before.cordonMovesPods,
  });
  expect(refused.status()).toBe(403);
  expect(await refused.text()).toContain("only a cluster admin may do this");
  await lead.dispose();
  expect(await readSignals(admin)).toEqual(before);
});
