import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeChanges } from "@/components/governance/audit/audit-details";
import type { Context } from "@/server/api/context";
import { createCaller } from "@/server/api/root";
import type { Db } from "@/server/db/client";
import { createLogger } from "@/server/log";
import { type ConsoleStack, startConsoleStack } from "@/server/operator/testing/console-stack";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { signIn, signOut } from "@/server/services/auth/sessions";
import { listGovernanceAudit } from "@/server/services/governance/audit";
import { stopCapacitySamplers } from "@/server/services/governance/sampler";
import type { GovernanceRevision } from "@/server/services/live/governance-streams";

/**
 * The governance pages by push (issue 36): `governance.watch` on real Postgres and a real local operator
 * sends each viewer a revision of what they read, and a quota change or a new job moves the part it
 * touches within a second or two, with no Refresh. The audit row of the change says 16 → 32.
 */
let stack: ConsoleStack;
let db: Db;
const LLM = "llm-research";
const job = { namespace: "hyperpod-ns-llm-research", name: "it-gov-watch" };
const closers: Array<() => Promise<void>> = [];

type Message =
  | { kind: "snapshot"; value: GovernanceRevision }
  | { kind: "patch"; patch: GovernanceRevision }
  | { kind: "unavailable"; message: string };

/** The revision a viewer holds after one more message (a patch is the whole revision). */
function revisionAfter(
  value: GovernanceRevision | null,
  next: IteratorResult<Message>,
): GovernanceRevision | null {
  if (next.done) throw new Error("the stream ended");
  if (next.value.kind === "snapshot") return next.value.value;
  if (next.value.kind === "patch") return next.value.patch;
  return value;
}

/** A signed-in viewer's governance stream, closed as a browser's is (its signal aborts). */
async function watch(email: string) {
  const session = await signIn(db, { email, password: "rebound-demo" });
  if (!session.ok) throw new Error(session.reason);
  const controller = new AbortController();
  const ctx: Context = {
    db,
    user: session.user,
    sessionToken: session.token,
    share: null,
    log: createLogger({ test: "it_governance_watch" }),
    setCookie: () => undefined,
    cluster: async () => stack.source,
    clientAddress: "127.0.0.1",
    secure: false,
  };
  const caller = createCaller(ctx, { signal: controller.signal });
  const stream = (await caller.governance.watch())[Symbol.asyncIterator]() as AsyncIterator<Message>;
  closers.push(async () => {
    controller.abort();
    await stream.return?.().catch(() => undefined);
  });
  let value: GovernanceRevision | null = null;
  /** Reads messages until `check` holds of the revision; how long it took. */
  const until = async (check: (revision: GovernanceRevision) => boolean, timeoutMs = 15_000) => {
    const started = Date.now();
    while (value === null || !check(value)) {
      if (Date.now() - started > timeoutMs)
        throw new Error(`not seen in ${timeoutMs} ms: ${JSON.stringify(value)}`);
      value = revisionAfter(value, await stream.next());
    }
    return { value, ms: Date.now() - started };
  };
  return { caller, token: session.token, until, next: () => stream.next() };
}

beforeAll(async () => {
  stack = await startConsoleStack({ prefix: "it_governance_watch", nodes: 1, gpusPerNode: 4 });
  db = stack.db;
}, 120_000);

afterAll(async () => {
  for (const close of closers) await close();
  stopCapacitySamplers();
  await stack?.stop();
}, 60_000);

describe("governance by push", () => {
  it("moves the audit part of a team admin's revision when their quota changes, and says 16 → 32", async () => {
    const lead = await watch("lead@rebound.local");
    const engineer = await watch("engineer@rebound.local");
    const first = (await lead.until(() => true)).value;
    const engineerFirst = (await engineer.until(() => true)).value;
    // An engineer reads no audit: their revision never carries one.
    expect(engineerFirst.audit).toBe("");

    const read = await lead.caller.governance.quota.get({ team: LLM });
    const gpu = read.resources.find((row) => row.resource === "nvidia.com/gpu");
    expect(gpu?.guaranteed).toBe(16);
    const { updatedAt: _at, updatedBy: _by, canEdit: _edit, displayName: _name, description, ...rest } = read;
    const resources = read.resources.map((row) => (row === gpu ? { ...row, guaranteed: 32 } : row));
    const saved = Date.now();
    await lead.caller.governance.quota.update({ ...rest, description, resources, allowOvercommit: true });

    const moved = await lead.until((revision) => revision.audit !== first.audit);
    // The mutation refreshes the hub: the new row arrives in one load, not an interval later.
    expect(Date.now() - saved).toBeLessThan(3_000);
    const [row] = await listGovernanceAudit(db, { teams: [LLM], limit: 1 });
    expect(moved.value.audit).toBe(row?.id);
    expect(row?.action).toBe("quota.update");
    expect(describeChanges(row?.details)).toContain(
      `resources[nvidia.com/gpu on ${gpu?.instanceType}].guaranteed 16 → 32`,
    );
  });

  it("moves the queue part for the team's members only when a job enters the queue", async () => {
    const engineer = await watch("engineer@rebound.local");
    const vision = await watch("vision@rebound.local");
    const before = (await engineer.until(() => true)).value;
    const visionBefore = (await vision.until(() => true)).value;
    await stack.operator.submit(demoJobYaml({ ...job, nodes: 1, ranks: 1, gpusPerPod: 1 }));
    const seen = await engineer.until((revision) => revision.queue.includes(`${job.namespace}/${job.name}`));
    expect(seen.value.queue).not.toBe(before.queue);
    expect(seen.ms).toBeLessThan(10_000);
    // Another team's member reads only their own queue: the LLM job is in no revision of theirs.
    expect(visionBefore.queue.startsWith("vision:")).toBe(true);
    expect(visionBefore.queue).not.toContain(LLM);
  });

  it("ends a revoked session's stream (UNAUTHORIZED)", async () => {
    const viewer = await watch("viewer@rebound.local");
    await viewer.until(() => true);
    await signOut(db, viewer.token);
    const ended = await (async () => {
      for (;;) {
        const next = await viewer.next();
        if (next.done) return "done";
      }
    })().catch((error: unknown) => (error instanceof TRPCError ? error.code : String(error)));
    expect(ended).toBe("UNAUTHORIZED");
  });
});
