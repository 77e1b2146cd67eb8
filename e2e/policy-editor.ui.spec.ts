import { readFileSync } from "node:fs";
import path from "node:path";
import { type APIRequestContext, expect, test } from "@playwright/test";
import { parse, stringify } from "yaml";
import { signedInRequest } from "./fixtures/governance-api";
import { expectNoSeriousA11yViolations, screenshot } from "./fixtures/page-checks";
import { ensurePolicy, readJobPolicy, readPolicy } from "./fixtures/policy-api";
import { trpcMutation } from "./fixtures/trpc";
import { JobPagePo, signIn } from "./pages/job-page";
import { JobPolicyPage } from "./pages/policy-page";

/**
 * The policy editor on the demo job against npm start's stack (issue 12): an engineer types a mistake and
 * sees it at its line, fixes it, dry-runs it on a running rank's output (no fault, its open windows) and on
 * pasted lines (the predicted fault), dry-runs the job's own rules on a healthy rank (no fault),
 * saves it as a new version and sees the diff, runs it in shadow mode and sees a "would have restarted"
 * verdict after an injected hang (the job's own rules restart it), applies it and sees the next recovery
 * run under it; the audit log names who did what. A viewer sees it read-only and the server refuses.
 */
const NAMESPACE = "hyperpod-ns-llm-research";
const JOB = "demo-llm";
const REF = { namespace: NAMESPACE, name: JOB };
const POLICY = `${JOB}-policy`;
const OPERATOR = `http://127.0.0.1:${Number(process.env.E2E_PORT ?? 3210) + 1}`;
const operatorHeaders = () => {
  const file = path.join(process.env.E2E_DATA_DIR ?? ".data/e2e", "operator-token");
  return { authorization: `Bearer ${readFileSync(file, "utf8").trim()}` };
};

type RunPolicy = { logMonitoringConfiguration: Record<string, unknown>[] } & Record<string, unknown>;
/**
 * The demo job's runPolicy, read from the job's own YAML (examples/jobs/demo-job.yaml, the one beforeAll
 * submits) so the two cannot drift: the library's starting version.
 */
const DEMO_POLICY = (
  parse(readFileSync("examples/jobs/demo-job.yaml", "utf8")) as { spec: { runPolicy: RunPolicy } }
).spec.runPolicy;
const ORIGINAL = stringify(DEMO_POLICY);
/** The edit: a stricter stall rule (5 s without a step line) after the job's own rules, beside its 10 s one. */
const STALL_RULE = {
  name: "StepStall",
  logPattern: String.raw`.*step=(\d+).*`,
  expectedRecurringFrequencyInSeconds: 5,
};
const EDITED = stringify({
  ...DEMO_POLICY,
  logMonitoringConfiguration: [...DEMO_POLICY.logMonitoringConfiguration, STALL_RULE],
});
const STALL_RULE_TITLE = `Rule ${DEMO_POLICY.logMonitoringConfiguration.length + 1}: StepStall`;
/** What a demo-trainer rank prints (examples/trainer/demo-trainer.ts), then silence. */
const TRAINER_LINES = [
  "training started rank=2",
  ...Array.from(
    { length: 20 },
    (_, step) => `step=${step + 1} loss=${(2.5 - step * 0.01).toFixed(4)} throughput=1523.4 samples/s rank=2`,
  ),
].join("\n");
/** The same with a misspelt key (restartPolicy.evalPeriodSeconds), and the line it is on. */
const MISTAKE = EDITED.replace("evalPeriodSeconds:", "evalPeriodSecnds:");
const MISTAKE_LINE = MISTAKE.split("\n").findIndex((line) => line.includes("evalPeriodSecnds:")) + 1;

test.describe.configure({ mode: "serial" });

let engineer: APIRequestContext;
let policyId = "";
let baseVersion = 0;

/** The demo job submitted fresh, and the library's demo-llm-policy holding the job's policy as submitted. */
test.beforeAll(async ({ request, playwright, baseURL }) => {
  test.setTimeout(120_000);
  const url = `${OPERATOR}/api/v1/jobs/${NAMESPACE}/${JOB}`;
  const headers = operatorHeaders();
  if ((await request.get(url, { headers })).status() === 200) {
    await request.delete(url, { headers });
    await expect
      .poll(async () => (await request.get(url, { headers })).status(), { timeout: 60_000 })
      .toBe(404);
  }
  const submitted = await request.post(`${OPERATOR}/api/v1/jobs`, {
    data: readFileSync("examples/jobs/demo-job.yaml", "utf8"),
    headers: { ...headers, "content-type": "application/yaml" },
  });
  expect(submitted.status(), await submitted.text()).toBe(201);
  engineer = await signedInRequest({ playwright, baseURL, email: "engineer@rebound.local" });
  let teamId: string | null = null;
  await expect
    .poll(
      async () => {
        teamId = (await readJobPolicy(engineer, REF).catch(() => null))?.teamId ?? null;
        return teamId;
      },
      { timeout: 30_000 },
    )
    .not.toBeNull();
  const policy = await ensurePolicy(engineer, { teamId: teamId ?? "", name: POLICY, yaml: ORIGINAL });
  policyId = policy.id;
  baseVersion = policy.version;
});

test.afterAll(async () => {
  await trpcMutation(engineer, "policies.setShadow", { ...REF, shadow: null });
  await engineer.dispose();
});

test("an engineer finds a mistake at its line, fixes it, and dry-runs it on a running rank", async ({
  page,
}, testInfo) => {
  test.setTimeout(120_000);
  await signIn(page, "engineer@rebound.local");
  const job = new JobPagePo(page);
  await job.goto(NAMESPACE, JOB);
  await expect(page.getByTestId("ranks-healthy")).toHaveText("8/8", { timeout: 60_000 });
  await page.getByRole("link", { name: "Policy", exact: true }).click();
  const policy = new JobPolicyPage(page);
  await policy.expectLoaded(JOB);
  await expect(policy.editor).toContainText("logMonitoringConfiguration");

  await policy.setYaml(MISTAKE);
  expect(MISTAKE_LINE).toBeGreaterThan(0);
  const mistake = policy.problem(new RegExp(`line ${MISTAKE_LINE}\\b`));
  await expect(mistake).toContainText("evalPeriodSecnds");
  await expect(mistake).toContainText("evalPeriodSeconds");
  await expect(policy.saveSection.getByRole("button", { name: "Save as new version" })).toBeDisabled();
  await screenshot(page, testInfo, "policy-mistake");

  await policy.setYaml(EDITED);
  await expect(policy.valid()).toBeVisible();
  await expect(policy.formRule(STALL_RULE_TITLE)).toBeVisible();
  await expect(policy.formRule(STALL_RULE_TITLE)).not.toContainText("Explained once the policy is valid");

  // A running rank's output since its attempt started, each line when it arrived: its step lines match
  // StepStall, it keeps stepping, so no fault; the window open at the read is a deadline.
  await policy.dryRunSection.getByLabel("A rank of this job").check();
  await policy.dryRunSection.getByRole("button", { name: "Dry-run" }).click();
  const verdict = policy.dryRunSection.getByRole("status", { name: "Dry-run verdict" });
  await expect(verdict).toContainText("No fault predicted", { timeout: 20_000 });
  await expect(
    verdict
      .getByRole("list", { name: "Open windows" })
      .getByRole("listitem")
      .filter({ hasText: "StepStall" }),
  ).toContainText("if no matching line comes");
  await expect(policy.dryRunSection.getByRole("region", { name: "Rule StepStall" })).toContainText(
    /[1-9][0-9]* matching line/,
  );
  // Pasted text too: a rank's lines, then silence, and StepStall (5 s) fires first.
  await policy.dryRunSection.getByLabel("Pasted text").check();
  await policy.dryRunSection.getByLabel("Log lines").fill(TRAINER_LINES);
  await policy.dryRunSection.getByRole("button", { name: "Dry-run" }).click();
  await expect(verdict).toContainText("Predicted fault", { timeout: 20_000 });
  await expect(verdict).toContainText("StepStall");
  await expect(verdict).toContainText("The restart policy would do next");
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, testInfo, "policy-dry-run");
});

test("a dry-run of the job's own rules on a healthy running rank predicts no fault", async ({
  page,
}, testInfo) => {
  test.setTimeout(90_000);
  await signIn(page, "engineer@rebound.local");
  const job = new JobPagePo(page);
  await job.goto(NAMESPACE, JOB);
  await expect(page.getByTestId("ranks-healthy")).toHaveText("8/8", { timeout: 60_000 });
  const policy = new JobPolicyPage(page);
  await policy.goto(NAMESPACE, JOB);
  await policy.setYaml(ORIGINAL);
  await expect(policy.valid()).toBeVisible();
  await policy.dryRunSection.getByLabel("A rank of this job").check();
  await policy.dryRunSection.getByLabel("Rank", { exact: true }).selectOption({ label: "Rank 5" });
  await policy.dryRunSection.getByRole("button", { name: "Dry-run" }).click();
  const verdict = policy.dryRunSection.getByRole("status", { name: "Dry-run verdict" });
  // The whole attempt is read (its "training started" line too) at the times lines arrived, up to now.
  await expect(verdict).toContainText("No fault predicted on rank 5", { timeout: 20_000 });
  await expect(verdict).not.toContainText("Predicted fault");
  await expect(
    verdict.getByRole("list", { name: "Open windows" }).getByRole("listitem").filter({ hasText: "JobHang" }),
  ).toContainText("if no matching line comes");
  await expect(policy.dryRunSection.getByRole("region", { name: "Rule JobStart" })).toContainText(
    "1 matching line",
  );
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, testInfo, "policy-dry-run-healthy-rank");
});

test("an engineer saves a new version, sees the diff, shadows it, and an injected hang shows what it would have done", async ({
  page,
}, testInfo) => {
  test.setTimeout(180_000);
  await signIn(page, "engineer@rebound.local");
  const policy = new JobPolicyPage(page);
  await policy.goto(NAMESPACE, JOB);
  await policy.setYaml(EDITED);
  await expect(policy.valid()).toBeVisible();
  await policy.saveSection
    .getByLabel("Policy", { exact: true })
    .selectOption({ label: `${POLICY} (v${baseVersion})` });
  await policy.saveSection.getByLabel("Message").fill("stall after 5 s without a step");
  await policy.saveSection.getByRole("button", { name: "Save as new version" }).click();
  const saved = baseVersion + 1;
  const diff = page.getByRole("list", { name: `Diff ${POLICY} v${baseVersion} → v${saved}` });
  await expect(diff).toBeVisible({ timeout: 20_000 });
  await expect(diff.getByRole("listitem").filter({ hasText: "name: StepStall" })).toContainText("added");
  expect((await readPolicy(engineer, policyId)).latest.version).toBe(saved);

  await policy.deploySection.getByRole("button", { name: `Run ${POLICY} v${saved} in shadow mode` }).click();
  await expect(policy.deploySection.getByRole("status")).toContainText("shadow mode", { timeout: 20_000 });
  await expect(page.getByTestId("shadow-policy")).toHaveText(`${POLICY} v${saved}`, { timeout: 20_000 });
  await screenshot(page, testInfo, "policy-saved-diff-shadow");

  const job = new JobPagePo(page);
  await job.goto(NAMESPACE, JOB);
  await expect(page.getByTestId("ranks-healthy")).toHaveText("8/8", { timeout: 60_000 });
  await job.selectRank(3);
  await job.confirm("Inject hang");
  const wouldHave = page
    .getByRole("list", { name: "Shadow verdicts" })
    .getByRole("listitem")
    .filter({ hasText: "would have restarted" });
  await expect(wouldHave.first()).toBeVisible({ timeout: 30_000 });
  await expect(wouldHave.first()).toContainText("StepStall");
  // The job's own 10 s rule (enforcing) restarts it; the shadow's acted on nothing.
  await expect(job.timelineEntries().filter({ hasText: "JobHang" }).first()).toBeVisible({ timeout: 40_000 });
  await expect(page.getByTestId("ranks-healthy")).toHaveText("8/8", { timeout: 60_000 });
  await screenshot(page, testInfo, "job-shadow-verdict");
});

test("an engineer applies the version and the next recovery runs under it", async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  const version = baseVersion + 1;
  const label = `${POLICY} v${version}`;
  await signIn(page, "engineer@rebound.local");
  const policy = new JobPolicyPage(page);
  await policy.goto(NAMESPACE, JOB);
  await policy.deploySection.getByLabel("Library policy").selectOption({ label: POLICY });
  await policy.deploySection.getByLabel("Version").selectOption(String(version));
  await policy.deploySection.getByRole("button", { name: `Apply ${label} (enforcing)` }).click();
  await expect(policy.deploySection.getByRole("status")).toContainText("next restart", { timeout: 20_000 });
  await expect(page.getByTestId("applied-policy")).toHaveText(label, { timeout: 20_000 });
  await expect(page.getByRole("status").filter({ hasText: "take effect at the next restart" })).toBeVisible();
  expect((await readJobPolicy(engineer, REF)).appliedPolicy).toMatchObject({ id: policyId, version });

  const job = new JobPagePo(page);
  await job.goto(NAMESPACE, JOB);
  await expect(page.getByRole("status").filter({ hasText: "take effect at the next restart" })).toBeVisible();
  await expect(page.getByTestId("ranks-healthy")).toHaveText("8/8", { timeout: 60_000 });
  const before = await job.timelineEntries().count();
  await job.selectRank(5);
  await job.confirm("Inject crash");
  await expect(job.timelineEntries()).toHaveCount(before + 1, { timeout: 40_000 });
  const entry = job.timelineEntries().last();
  await expect(entry).toContainText("WorkerCrash");
  await expect(entry).toContainText(label);
  await expect(page.getByRole("status").filter({ hasText: "take effect at the next restart" })).toHaveCount(
    0,
    {
      timeout: 30_000,
    },
  );
  await screenshot(page, testInfo, "job-recovery-under-policy");
});

test("the policy audit log shows who saved, shadowed and applied which version", async ({
  page,
}, testInfo) => {
  const version = baseVersion + 1;
  await signIn(page, "lead@rebound.local");
  const policy = new JobPolicyPage(page);
  await policy.goto(NAMESPACE, JOB);
  const rows = page.getByRole("table", { name: "Policy audit log" }).getByRole("row");
  const row = (action: string, what: string) =>
    rows.filter({ hasText: action }).filter({ hasText: what }).filter({ hasText: "ML Engineer" });
  await expect(row("policy.save", `saved v${version}: stall after 5 s without a step`)).toHaveCount(1);
  await expect(row("policy.shadow", `shadow: ${POLICY} v${version}`).first()).toBeVisible();
  await expect(row("policy.apply", `applied ${POLICY} v${version} (enforcing)`).first()).toContainText(
    `${NAMESPACE}/${JOB}`,
  );
  await screenshot(page, testInfo, "policy-audit");
});

test("a viewer sees the policy read-only, and the server refuses a viewer's save and apply", async ({
  page,
  playwright,
  baseURL,
}, testInfo) => {
  await signIn(page, "viewer@rebound.local");
  const policy = new JobPolicyPage(page);
  await policy.goto(NAMESPACE, JOB);
  await expect(policy.editor).not.toBeEditable();
  await expect(page.getByText("Read only")).toBeVisible();
  await expect(page.getByRole("button", { name: "Save as new version" })).toHaveCount(0);
  await expect(
    page.getByRole("button", { name: /\(enforcing\)|shadow mode|Promote to enforcing/ }),
  ).toHaveCount(0);
  await expectNoSeriousA11yViolations(page);
  await screenshot(page, testInfo, "policy-viewer");

  const before = await readPolicy(engineer, policyId);
  const viewer = await signedInRequest({ playwright, baseURL, email: "viewer@rebound.local" });
  const save = await trpcMutation(viewer, "policies.save", {
    id: policyId,
    yaml: ORIGINAL,
    message: "a viewer's save",
    baseVersion: before.latest.version,
  });
  expect(save.status(), await save.text()).toBe(403);
  const current = await readJobPolicy(engineer, REF);
  const apply = await trpcMutation(viewer, "policies.applyPolicy", {
    ...REF,
    policyId,
    version: 1,
    expectedVersion: current.resourceVersion,
  });
  expect(apply.status(), await apply.text()).toBe(403);
  await viewer.dispose();
  expect((await readPolicy(engineer, policyId)).latest.version).toBe(before.latest.version);
  expect((await readJobPolicy(engineer, REF)).resourceVersion).toBe(current.resourceVersion);
});
