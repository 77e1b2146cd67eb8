import { expect, type Locator, type Page } from "@playwright/test";

/** The job page: rank table rows, the selected rank's panel, the restart timeline's accessible list. */
export class JobPagePo {
  constructor(readonly page: Page) {}

  async goto(namespace: string, name: string) {
    await this.page.goto(`/jobs/${namespace}/${name}`);
    await expect(this.page.getByRole("heading", { name, level: 1 })).toBeVisible();
  }

  async selectRank(rank: number) {
    await this.page.getByRole("button", { name: `Select rank ${rank}`, exact: true }).click();
    await expect(this.page.getByRole("heading", { name: new RegExp(`^Rank ${rank}\\b`) })).toBeVisible();
  }

  selectedHealth(): Locator {
    return this.page.getByTestId("selected-rank-health");
  }

  /** The rank table (named by its caption). */
  rankTable(): Locator {
    return this.page.getByRole("table", { name: /^Per-rank health/ });
  }

  /** A rank's row in the rank table (found by its rank button). */
  rankRow(rank: number): Locator {
    return this.rankTable()
      .getByRole("row")
      .filter({ has: this.page.getByRole("button", { name: `Select rank ${rank}`, exact: true }) });
  }

  /** A column header of the rank table. */
  rankColumn(name: string): Locator {
    return this.rankTable().getByRole("columnheader", { name, exact: true });
  }

  /** The topology canvas (role img), named by its per-health counts. */
  topology(): Locator {
    return this.page.getByRole("img", { name: /^Rank topology/ });
  }

  timelineEntries(): Locator {
    return this.page.getByRole("list", { name: "Faults and recoveries" }).getByRole("listitem");
  }

  async confirm(buttonName: string) {
    await this.page.getByRole("button", { name: buttonName, exact: true }).click();
    const dialog = this.page.getByRole("dialog");
    await expect(dialog).toBeVisible();
    await dialog.getByRole("button", { name: "Confirm" }).click();
  }
}

export async function signIn(page: Page, email: string) {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("rebound-demo");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/jobs$/);
}
