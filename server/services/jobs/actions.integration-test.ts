import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/server/db/client";
import { type ConsoleStack, startConsoleStack } from "@/server/operator/testing/console-stack";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import type { LocalOperator } from "@/server/operator/testing/local-operator";
import type { SessionUser } from "@/server/services/auth/sessions";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";
import { listRestartEvents } from "@/server/store/restart-events/queries";
import { runJobAction } from "./actions";
import { jobPage } from "./queries";

/**
 * The console's job actions end to end on the server: a real operator behind its real HTTP API, the
 * console's operator source, Postgres. Only an engineer of the job's team (or a cluster admin) may act;
 * every allowed action is audited before it is sent; a refused one changes nothing.
 */
let stack: ConsoleStack;
let db: Db;
let operator: LocalOperator;
let source: ClusterSource;
const ref = { namespace: "hyperpod-ns-llm-research", name: "it-console-actions" };

const user = (email: string): Promise<SessionUser> => stack.user(email);

beforeAll(async () => {
  stack = await startConsoleStack({ prefix: "it_console_actions", nodes: 2, gpusPerNode: 2 });
  ({ db, operator, source } = stack);
  await operator.submit(demoJobYaml({ name: ref.name, nodes: 2, ranks: 2, gpusPerPod: 2 }));
  await operator.waitFor("4 ranks running", () => operator.live(ref)?.ranksRunning === 4, 60_000);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

describe("job actions from the console", () => {
  it("refuses another team's engineer and a viewer, and writes nothing", async () => {
    const audits = await db.auditLog.count();
    // Another team's engineer does not even see the job; a viewer of the team sees it but may not act.
    const refusals = { "vision@rebound.local": "NOT_FOUND", "viewer@rebound.local": "FORBIDDEN" };
    for (const [email, code] of Object.entries(refusals)) {
      await expect(
        runJobAction(db, source, { user: await user(email), ref, input: { action: "restart-job" } }),
      ).rejects.toMatchObject({ code });
    }
    expect(await db.auditLog.count()).toBe(audits);
    expect(await listRestartEvents(db, { namespace: ref.namespace, jobName: ref.name })).toEqual([]);
  });

  it("lets the team's engineer restart the job: audited, carried out, on the timeline", async () => {
    const engineer = await user("engineer@rebound.local");
    await runJobAction(db, source, { user: engineer, ref, input: { action: "restart-job" } });
    const audit = await db.auditLog.findFirst({
      where: { action: "job.restart-job" },
      orderBy: { createdAt: "desc" },
    });
    expect(audit).toMatchObject({ userId: engineer.id, target: `${ref.namespace}/${ref.name}` });
    const event = await operator.waitFor(
      "the restart to finish",
      async () => {
        const [first] = await listRestartEvents(db, { namespace: ref.namespace, jobName: ref.name });
        return first?.outcome === "recovered" ? first : null;
      },
      30_000,
    );
    expect(event).toMatchObject({ faultReason: "ManualRestart", action: "JLR" });
    const page = await operator.waitFor("the page to show it", async () => {
      const found = await jobPage(db, source, ref);
      return found.timeline.length === 1 ? found : null;
    });
    expect(page.timeline[0]).toMatchObject({ reason: "ManualRestart", action: "JLR", outcome: "recovered" });
    expect(page.topology.ranks).toHaveLength(4);
  });

  it("refuses a restart of a rank the job does not have, naming the field", async () => {
    const admin = await user("admin@rebound.local");
    await expect(
      runJobAction(db, source, { user: admin, ref, input: { action: "restart-rank", rank: 99 } }),
    ).rejects.toThrow("rank: the job has ranks 0-3, got 99");
  });
});
