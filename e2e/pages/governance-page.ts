import { expect, type Locator, type Page } from "@playwright/test";

/** A team's governance page: the quota editor (or its read-only view), the what-if, queue and members. */
export class TeamGovernancePage {
  readonly quotaSection: Locator;
  readonly borrowLimit: Locator;
  readonly weight: Locator;
  readonly reviewButton: Locator;
  readonly saveButton: Locator;
  readonly impact: Locator;
  readonly saved: Locator;

  constructor(readonly page: Page) {
    this.quotaSection = page.getByRole("region", { name: "Compute quota" });
    this.borrowLimit = this.quotaSection.getByLabel("Borrow limit (%)");
    this.weight = this.quotaSection.getByLabel("Fair-share weight");
    this.reviewButton = this.quotaSection.getByRole("button", { name: "Review change" });
    this.saveButton = this.quotaSection.getByRole("button", { name: "Save quota" });
    this.impact = this.quotaSection.getByRole("region", { name: "Impact of this change" });
    this.saved = this.quotaSection.getByRole("status").filter({ hasText: "Saved" });
  }

  async goto(team: string, displayName: string) {
    await this.page.goto(`/governance/teams/${team}`);
    await expect(this.page.getByRole("heading", { name: displayName, level: 1 })).toBeVisible();
    await expect(this.quotaSection.getByText(/^Version \d+/)).toBeVisible({ timeout: 20_000 });
  }

  guaranteed(resource: string, instanceType = "default"): Locator {
    return this.quotaSection.getByLabel(
      new RegExp(`^Guaranteed ${resource.replace(".", "\\.")} on ${instanceType}`),
    );
  }

  memberRole(name: string): Locator {
    return this.page.getByRole("table", { name: "Members" }).getByLabel(`Role of ${name}`);
  }

  /**
   * The job's row in one of the queue's tables ("Pending jobs", "Admitted jobs", "Preempted jobs"), once
   * it is there: the server pushes the queue's changes (governance.watch), so no button is pressed.
   */
  async expectQueueRow(table: string, job: string, timeout = 60_000): Promise<Locator> {
    const row = this.page.getByRole("table", { name: table }).getByRole("row").filter({ hasText: job });
    await expect(row).toBeVisible({ timeout });
    return row;
  }

  /** A refusal or conflict shown by the quota form. */
  refusal(): Locator {
    return this.quotaSection.getByRole("alert");
  }
}

/** The governance audit log (read-only). */
export class GovernanceAuditPage {
  readonly table: Locator;

  constructor(readonly page: Page) {
    this.table = page.getByRole("table", { name: "Governance audit log" });
  }

  async goto() {
    await this.page.goto("/governance/audit");
    await expect(this.page.getByRole("heading", { name: "Governance audit log", level: 1 })).toBeVisible();
  }

  rows(): Locator {
    return this.table.getByRole("row").filter({ has: this.page.getByRole("cell") });
  }
}
