import { expect, type Locator, type Page } from "@playwright/test";

/**
 * A job's policy page (/jobs/<ns>/<name>/policy): the run policy's YAML editor and its problems, the
 * library save, the version diff, apply / shadow, the shadow's verdicts and the dry-run panel.
 */
export class JobPolicyPage {
  readonly editor: Locator;
  readonly problems: Locator;
  readonly saveSection: Locator;
  readonly deploySection: Locator;
  readonly shadowSection: Locator;
  readonly dryRunSection: Locator;

  constructor(readonly page: Page) {
    this.editor = page.getByRole("textbox", { name: "Run policy YAML" });
    this.problems = page.getByRole("status", { name: "Policy check" });
    this.saveSection = page.getByRole("region", { name: "Save to the team's library" });
    this.deploySection = page.getByRole("region", { name: "Apply or shadow a saved version" });
    this.shadowSection = page.getByRole("region", { name: "Shadow mode" });
    this.dryRunSection = page.getByRole("region", { name: "Dry-run" });
  }

  async goto(namespace: string, name: string) {
    await this.page.goto(`/jobs/${namespace}/${name}/policy`);
    await this.expectLoaded(name);
  }

  async expectLoaded(name: string) {
    await expect(this.page.getByRole("heading", { name: `Policy of ${name}`, level: 1 })).toBeVisible({
      timeout: 30_000,
    });
    await expect(this.editor).toBeVisible();
  }

  /** Replaces the editor's whole text, as a paste would (no auto-indent on the way in). */
  async setYaml(yaml: string) {
    await this.editor.click();
    await this.page.keyboard.press("ControlOrMeta+a");
    await this.page.keyboard.press("Delete");
    await this.page.keyboard.insertText(yaml);
  }

  problem(text: string | RegExp): Locator {
    return this.problems.getByRole("listitem").filter({ hasText: text });
  }

  /** The check says the draft is valid (it may still list warnings). */
  valid(): Locator {
    return this.problems.getByText(/^Valid/);
  }

  /** A rule's fieldset in the form view, e.g. "Rule 5: StepStall". */
  formRule(title: string): Locator {
    return this.page.getByRole("group", { name: title });
  }

  shadowVerdicts(): Locator {
    return this.shadowSection.getByRole("list", { name: "Shadow verdicts" }).getByRole("listitem");
  }
}
