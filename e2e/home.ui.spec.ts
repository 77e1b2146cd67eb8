import { expect, test } from "@playwright/test";
import { HomePage } from "./pages/home-page";
import { signIn } from "./pages/job-page";

test("signed out, the overview shows no teams and offers sign-in", async ({ page }) => {
  const home = new HomePage(page);
  await home.goto();
  await expect(page.getByRole("main").getByRole("link", { name: "Sign in" })).toBeVisible();
  await expect(home.teamsTable).toHaveCount(0);
  await expect(page.getByText("hyperpod-ns-llm-research")).toHaveCount(0);
});

test("the overview shows the seeded teams and their GPU quotas", async ({ page }, testInfo) => {
  const home = new HomePage(page);
  await signIn(page, "viewer@rebound.local");
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
