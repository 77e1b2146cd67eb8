import { expect, test } from "@playwright/test";
import { HomePage } from "./pages/home-page";

test("the overview shows the seeded teams and their GPU quotas", async ({ page }, testInfo) => {
  const home = new HomePage(page);
  await home.goto();
  await expect(page.getByRole("heading", { name: "Teams and quotas" })).toBeVisible();
  const research = home.teamRow("LLM Research");
  await expect(research).toBeVisible();
  await expect(research.getByRole("cell", { name: "hyperpod-ns-llm-research" })).toBeVisible();
  await expect(research.getByRole("cell", { name: "16", exact: true })).toBeVisible();
  await expect(home.teamRow("Vision")).toBeVisible();
  await testInfo.attach("overview", {
    body: await page.screenshot({ fullPage: true }),
    contentType: "image/png",
  });
});
