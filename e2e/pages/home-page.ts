import type { Locator, Page } from "@playwright/test";

/** The overview page: teams and their quotas. */
export class HomePage {
  readonly teamsTable: Locator;

  constructor(private readonly page: Page) {
    this.teamsTable = page.getByRole("table", { name: "Teams and quotas" });
  }

  async goto(): Promise<void> {
    await this.page.goto("/");
  }

  teamRow(displayName: string): Locator {
    return this.teamsTable
      .getByRole("row")
      .filter({ has: this.page.getByRole("cell", { name: displayName, exact: true }) });
  }
}
