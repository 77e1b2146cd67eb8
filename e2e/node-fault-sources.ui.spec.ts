import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { jobDetailResponseSchema } from "@/server/domain/operator-api/contract";
import { operatorHeaders, PRIMARY_OPERATOR, resubmitOperatorJob } from "./fixtures/operator-jobs";
import { JobPagePo, signIn } from "./pages/job-page";

/**
 * A node fault said by NVSentinel (`rebound fault demo-llm node --source nvsentinel`, through the operator
 * API as the CLI calls it), against npm start's stack: the cluster page shows the node's health with the
 * source and its reason, the job's pod is replaced and the restart timeline names the source; once the
 * fact is cleared (the local node's reboot delay) the node reads healthy again.
 */
const NAMESPACE = "hyperpod-ns-llm-research";
const JOB = "demo-llm";
const REASON =
  "GpuMemWatch — ErrorCode:DCGM_FR_VOLATILE_DBE_DETECTED GPU:0 Recommended Action=COMPONENT_RESET";

test.describe.configure({ mode: "serial" });

test.beforeAll(async ({ request }) =>
  resubmitOperatorJob(request, {
    job: { namespace: NAMESPACE, name: JOB },
    yaml: readFileSync("examples/jobs/demo-job.yaml", "utf8"),
  }),
);

test("an NVSentinel fault shows on the cluster page with its source and reason, and on the timeline", async ({
  page,
  request,
}, testInfo) => {
  test.setTimeout(120_000);
  const jobUrl = `${PRIMARY_OPERATOR.url}/api/v1/jobs/${NAMESPACE}/${JOB}`;
  const headers = operatorHeaders();
  await expect
    .poll(
      async () => {
        const detail = jobDetailResponseSchema.safeParse(
          await (await request.get(jobUrl, { headers })).json(),
        );
        return detail.success ? (detail.data.live?.ranksRunning ?? 0) : 0;
      },
      { timeout: 60_000 },
    )
    .toBe(8);

  await signIn(page, "viewer@rebound.local");
  await page.goto("/cluster");
  await expect(page.getByRole("row").filter({ hasText: JOB }).first()).toBeVisible({ timeout: 20_000 });

  const injected = await request.post(`${jobUrl}/faults`, {
    headers: { ...headers, "content-type": "application/json" },
    data: { kind: "node", rank: 0, source: "nvsentinel" },
  });
  expect(injected.status(), await injected.text()).toBe(202);
  const { node } = (await injected.json()) as { node: string };
  const injectedAt = Date.now();

  // Pushed live to the open page: no reload.
  const row = page.getByRole("row").filter({ has: page.getByText(node, { exact: true }) });
  const signal = row.getByTestId("node-signal");
  await expect(signal).toContainText(`NVSentinel: ${REASON}`, { timeout: 15_000 });
  const shownMs = Date.now() - injectedAt;
  await expect(signal).toContainText("unusable, its pods are replaced now");
  await expect(row.getByRole("strong")).toHaveText("NVSentinel");
  // HyperPod's label still says Schedulable: the badge says what the table made of the node.
  await expect(row.getByRole("cell").nth(1)).toHaveText("Unusable");
  await page.screenshot({ path: testInfo.outputPath("cluster-node-signal.png"), fullPage: true });
  await testInfo.attach("cluster-node-signal", {
    path: testInfo.outputPath("cluster-node-signal.png"),
    contentType: "image/png",
  });
  // The job's pod left the node: it is no longer listed on that row.
  await expect(row).not.toContainText(JOB, { timeout: 30_000 });
  console.log(`[node-signals e2e] fault injected → shown on the cluster page ${shownMs} ms`);

  const job = new JobPagePo(page);
  await job.goto(NAMESPACE, JOB);
  await expect(job.timelineEntries().last()).toContainText(`NodeFault (NVSentinel: ${REASON})`, {
    timeout: 30_000,
  });

  // The fact is cleared after the node's reboot delay (REBOUND_LOCAL_NODE_REBOOT_SECONDS, 20 s).
  await page.goto("/cluster");
  await expect(row.getByRole("cell").nth(2)).toHaveText("—", { timeout: 40_000 });
  await expect(row).toContainText("Schedulable");
});
