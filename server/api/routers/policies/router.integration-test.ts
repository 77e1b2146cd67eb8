import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ZodError } from "zod";
import { fieldPath } from "@/server/api/trpc";
import type { Db } from "@/server/db/client";
import { type ConsoleStack, startConsoleStack } from "@/server/operator/testing/console-stack";
import { demoJobYaml } from "@/server/operator/testing/jobs";

/**
 * The policies router on real Postgres and a real local operator: the library (create, save, diff),
 * optimistic concurrency naming who saved and when, who may write (a viewer and another team's engineer
 * are refused, nothing saved), bad input refused with its message and nothing saved (each timed), the audit
 * rows, and dry-runs over pasted text and over a running rank's whole attempt, each line when it arrived.
 */
let stack: ConsoleStack;
let db: Db;
let llmTeamId: string;
const job = { namespace: "hyperpod-ns-llm-research", name: "it-policy-llm" };

const caller = async (email: string) => (await stack.callerFor(email)).caller;
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => "allowed",
    (error: unknown) => (error instanceof TRPCError ? `${error.code}: ${error.message}` : String(error)),
  );
const codeOf = async (promise: Promise<unknown>) => (await failure(promise)).split(":")[0];

const HANG = `restartPolicy:
  evalPeriodSeconds: 3600
  numRestartBeforeFullJobRestart: 3
logMonitoringConfiguration:
  - name: hang
    logPattern: ".*step=(\\\\d+).*"
    expectedRecurringFrequencyInSeconds: 30
`;
const HANG_AND_NAN = `${HANG}  - name: nan-loss
    logPattern: ".*loss=(nan|inf).*"
    faultOnMatch: true
`;

/** The test job's own rules (demoJobYaml) with the demo job's start cut-off. */
const JOB_OWN = `logMonitoringConfiguration:
  - name: JobStart
    logPattern: ".*training started.*"
    expectedStartCutOffInSeconds: 60
  - name: JobHang
    logPattern: ".*step=(\\\\d+).*"
    expectedRecurringFrequencyInSeconds: 2
  - name: LossNaN
    logPattern: ".*loss=(nan|inf).*"
    faultOnMatch: true
`;
/** A rule that waits for "training started" again within 1 s: a rank prints it once, so it hangs. */
const STARTS_OFTEN = `logMonitoringConfiguration:
  - name: starts-often
    logPattern: ".*training started.*"
    expectedRecurringFrequencyInSeconds: 1
`;

/** Everything a policy mutation could change. */
async function state(): Promise<string> {
  const [policies, versions, audit] = await Promise.all([
    db.policy.findMany({ orderBy: { id: "asc" } }),
    db.policyVersion.findMany({ orderBy: { id: "asc" } }),
    db.auditLog.count(),
  ]);
  return JSON.stringify({ policies, versions, audit });
}

async function created(name: string, yaml = HANG): Promise<string> {
  const engineer = await caller("engineer@rebound.local");
  const { id } = await engineer.policies.create({ teamId: llmTeamId, name, yaml, message: "first cut" });
  return id;
}

beforeAll(async () => {
  stack = await startConsoleStack({ prefix: "it_policies", nodes: 1, gpusPerNode: 1 });
  db = stack.db;
  llmTeamId = (await db.team.findUniqueOrThrow({ where: { name: "llm-research" } })).id;
  // Two local ranks in one pod: rank 0's rules are watched, rank 1's are not (no --log-rules-all-ranks).
  await stack.operator.submit(demoJobYaml({ name: job.name, nodes: 1, ranks: 2, gpusPerPod: 1, tee: true }));
  await stack.operator.waitFor("the job running", () => stack.operator.live(job)?.ranksRunning === 2, 60_000);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

describe("the policy library", () => {
  it("creates a policy, saves version 2 and diffs them; both versions stay readable", async () => {
    const engineer = await caller("engineer@rebound.local");
    const id = await created("hang");
    expect(
      await engineer.policies.save({ id, yaml: HANG_AND_NAN, message: "NaN too", baseVersion: 1 }),
    ).toEqual({ version: 2 });
    const policy = await engineer.policies.get({ id });
    expect(policy).toMatchObject({
      name: "hang",
      team: { id: llmTeamId, name: "llm-research" },
      canEdit: true,
      latest: { version: 2, yaml: HANG_AND_NAN },
    });
    expect(policy.versions.map((v) => [v.version, v.author, v.message])).toEqual([
      [2, "ML Engineer", "NaN too"],
      [1, "ML Engineer", "first cut"],
    ]);
    expect((await engineer.policies.version({ id, version: 1 })).yaml).toBe(HANG);
    const diff = await engineer.policies.diff({ id, from: 1, to: 2 });
    expect(diff.lines.filter((line) => line.kind === "added").map((line) => line.text.trim())).toEqual([
      "- name: nan-loss",
      'logPattern: ".*loss=(nan|inf).*"',
      "faultOnMatch: true",
    ]);
    expect(diff.lines.filter((line) => line.kind === "removed")).toEqual([]);
    const listed = (await engineer.policies.list()).find((row) => row.id === id);
    expect(listed).toMatchObject({ latest: { version: 2, author: "ML Engineer", message: "NaN too" } });
    expect(await failure(engineer.policies.version({ id, version: 7 }))).toMatch(
      /^NOT_FOUND: version: policy .* has versions 1 to 2; got 7$/,
    );
  });

  it("refuses a save from a stale version naming who saved the newer one and when; nothing saved", async () => {
    const id = await created("stale");
    const lead = await caller("lead@rebound.local");
    await lead.policies.save({ id, yaml: HANG_AND_NAN, message: "lead's change", baseVersion: 1 });
    const before = await state();
    const engineer = await caller("engineer@rebound.local");
    const refused = await failure(
      engineer.policies.save({ id, yaml: HANG, message: "mine", baseVersion: 1 }),
    );
    expect(refused).toMatch(
      /^CONFLICT: policy "stale" of llm-research was changed by Team Lead at \d\d:\d\d UTC \(version 2; you read 1\)/,
    );
    expect(await state()).toBe(before);
  });

  it("refuses two saves from one base at once: exactly one wins", async () => {
    const id = await created("race");
    const [a, b] = await Promise.all([caller("engineer@rebound.local"), caller("lead@rebound.local")]);
    const outcomes = await Promise.all([
      codeOf(a.policies.save({ id, yaml: HANG_AND_NAN, message: "a", baseVersion: 1 })),
      codeOf(b.policies.save({ id, yaml: HANG_AND_NAN, message: "b", baseVersion: 1 })),
    ]);
    expect(outcomes.sort()).toEqual(["CONFLICT", "allowed"]);
    expect(await db.policyVersion.count({ where: { policyId: id } })).toBe(2);
  });

  it("refuses a second policy of the same name in a team", async () => {
    await created("twice");
    const engineer = await caller("engineer@rebound.local");
    expect(
      await failure(engineer.policies.create({ teamId: llmTeamId, name: "twice", yaml: HANG, message: "" })),
    ).toBe('CONFLICT: name: llm-research already has a policy named "twice"');
  });
});

describe("who may write", () => {
  it("lets a viewer read but refuses their create and save; nothing saved", async () => {
    const id = await created("viewer-reads");
    const viewer = await caller("viewer@rebound.local");
    expect((await viewer.policies.get({ id })).canEdit).toBe(false);
    const before = await state();
    expect(await failure(viewer.policies.save({ id, yaml: HANG_AND_NAN, message: "", baseVersion: 1 }))).toBe(
      "FORBIDDEN: only an engineer or team admin of llm-research (or a cluster admin) may change its policies",
    );
    expect(
      await codeOf(viewer.policies.create({ teamId: llmTeamId, name: "viewer's", yaml: HANG, message: "" })),
    ).toBe("FORBIDDEN");
    expect(await state()).toBe(before);
  });

  it("answers another team's engineer NOT_FOUND, as for a policy that does not exist; nothing saved", async () => {
    const id = await created("llm-only");
    const vision = await caller("vision@rebound.local");
    const before = await state();
    const refusals = await Promise.all([
      codeOf(vision.policies.get({ id })),
      codeOf(vision.policies.version({ id, version: 1 })),
      codeOf(vision.policies.diff({ id, from: 1, to: 1 })),
      codeOf(vision.policies.save({ id, yaml: HANG_AND_NAN, message: "", baseVersion: 1 })),
      codeOf(vision.policies.create({ teamId: llmTeamId, name: "theirs", yaml: HANG, message: "" })),
      codeOf(
        vision.policies.list({ teamId: llmTeamId }).then((rows) => (rows.length ? rows : Promise.reject())),
      ),
    ]);
    expect(refusals.slice(0, 5)).toEqual(Array(5).fill("NOT_FOUND"));
    expect(refusals[5]).not.toBe("allowed");
    expect((await vision.policies.list()).map((row) => row.team.name)).not.toContain("llm-research");
    expect(await state()).toBe(before);
    // A cluster admin sees and changes every team's.
    const admin = await caller("admin@rebound.local");
    expect((await admin.policies.get({ id })).canEdit).toBe(true);
  });
});

describe("bad input", () => {
  const aliasBomb = [
    "a: &a [x, x, x, x, x, x, x, x, x, x]",
    ...Array.from({ length: 12 }, (_, i) => {
      const prev = String.fromCharCode(97 + i);
      const next = String.fromCharCode(98 + i);
      return `${next}: &${next} [*${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}]`;
    }),
    "restartPolicy:\n  evalPeriodSeconds: 60",
  ].join("\n");
  const cases: Array<{ what: string; yaml: string; message: RegExp }> = [
    {
      what: "a 10 MB paste",
      yaml: `${HANG}#${"x".repeat(10 * 1024 * 1024)}`,
      message: /10\.0 MB is over the limit of 64 KB/,
    },
    { what: "an alias bomb", yaml: aliasBomb, message: /alias/i },
    {
      what: "a lookahead",
      yaml: `logMonitoringConfiguration:\n  - name: look\n    logPattern: "step(?=\\\\d)"\n    faultOnMatch: true\n`,
      message: /line 3, column \d+: .*lookahead/i,
    },
    {
      what: "an unknown field",
      yaml: `restartPolicy:\n  evalPeriodSeconds: 60\n  evalPeriodSecs: 60\n`,
      message: /line 3, column 3: .*evalPeriodSecs/,
    },
    {
      what: "a repeated rule name",
      yaml: `logMonitoringConfiguration:\n  - name: hang\n    logPattern: ".*step.*"\n    expectedRecurringFrequencyInSeconds: 30\n  - name: hang\n    logPattern: ".*loss.*"\n    faultOnMatch: true\n`,
      message: /line 5, column \d+: .*hang/,
    },
  ];

  it.each(cases)(
    "refuses $what in create and save with its message, within 1 s, nothing saved",
    async (bad) => {
      const id = await created(`bad-${bad.what.replaceAll(" ", "-")}`);
      const engineer = await caller("engineer@rebound.local");
      const before = await state();
      let worst = 0;
      for (const attempt of [
        () => engineer.policies.save({ id, yaml: bad.yaml, message: "", baseVersion: 1 }),
        () =>
          engineer.policies.create({ teamId: llmTeamId, name: `${bad.what} 2`, yaml: bad.yaml, message: "" }),
        () =>
          engineer.policies
            .validate({ yaml: bad.yaml })
            .then((r) =>
              r.ok
                ? r
                : Promise.reject(
                    new Error(
                      r.errors.map((e) => `line ${e.line}, column ${e.column}: ${e.message}`).join("; "),
                    ),
                  ),
            ),
      ]) {
        const started = performance.now();
        const refused = await failure(attempt());
        worst = Math.max(worst, performance.now() - started);
        expect(refused).toMatch(bad.message);
      }
      console.log(`policies bad input: ${bad.what} refused in at most ${worst.toFixed(1)} ms`);
      expect(worst).toBeLessThan(1000);
      expect(await state()).toBe(before);
    },
  );

  it("answers a refused save with every error in data.issues under yaml", async () => {
    const id = await created("issues");
    const engineer = await caller("engineer@rebound.local");
    const error = await engineer.policies
      .save({
        id,
        yaml: "restartPolicy:\n  evalPeriodSeconds: -1\n  bogus: 1\n",
        message: "",
        baseVersion: 1,
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TRPCError);
    const trpc = error as TRPCError;
    expect(trpc.code).toBe("BAD_REQUEST");
    expect(trpc.cause).toBeInstanceOf(ZodError);
    const issues = (trpc.cause as ZodError).issues.map((issue) => fieldPath(issue.path));
    expect(issues).toEqual(["yaml.restartPolicy.evalPeriodSeconds", "yaml.restartPolicy.bogus"]);
    expect(trpc.message).toMatch(
      /^yaml\.restartPolicy\.evalPeriodSeconds: line 2, column \d+: .*; yaml\.restartPolicy\.bogus: line 3, column 3: .*bogus/,
    );
  });
});

describe("the audit", () => {
  it("records create and save with before and after", async () => {
    const id = await created("audited");
    const engineer = await caller("engineer@rebound.local");
    await engineer.policies.save({ id, yaml: HANG_AND_NAN, message: "NaN too", baseVersion: 1 });
    const rows = await db.auditLog.findMany({
      where: { target: "team/llm-research/policy/audited" },
      orderBy: { createdAt: "asc" },
      select: { action: true, details: true, user: { select: { name: true } } },
    });
    expect(rows).toMatchObject([
      {
        action: "policy.create",
        user: { name: "ML Engineer" },
        details: { policyId: id, before: null, after: { version: 1, message: "first cut", yaml: HANG } },
      },
      {
        action: "policy.save",
        user: { name: "ML Engineer" },
        details: {
          policyId: id,
          before: { version: 1, yaml: HANG },
          after: { version: 2, message: "NaN too", yaml: HANG_AND_NAN },
        },
      },
    ]);
  });
});

describe("dry-run", () => {
  it("finds the fault in pasted text", async () => {
    const viewer = await caller("viewer@rebound.local");
    const text = ["step=1 loss=2.0", "step=2 loss=1.9", "step=3 loss=nan"].join("\n");
    const result = await viewer.policies.dryRun({ yaml: HANG_AND_NAN, source: { kind: "text", text } });
    expect(result.fault).toMatchObject({ rule: "nan-loss", lineNumber: 3 });
  });

  it("reads a running rank's whole attempt, each line when it arrived: the job's own rules predict no fault", async () => {
    const engineer = await caller("engineer@rebound.local");
    const restarts = stack.operator.live(job)?.restartCount;
    const dryRun = () =>
      engineer.policies.dryRun({ yaml: JOB_OWN, source: { kind: "rank", ...job, rank: 0 } });
    // Once the attempt has stepped for a while (it may have begun just before this test).
    let result = await dryRun();
    for (
      let tries = 0;
      tries < 50 && (result.rank?.readAt ?? 0) - (result.rank?.startedAt ?? 0) < 2000;
      tries++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      result = await dryRun();
    }
    const rank = result.rank;
    if (!rank?.startedAt) throw new Error(`no live rank in the answer: ${JSON.stringify(result.notes)}`);
    expect(result.fault).toBeNull();
    expect(rank).toMatchObject({ rank: 0, localRank: 0, watched: true, timed: true, attempt: 0 });
    // The attempt's start line is read (not only a tail), and the start cut-off counts from the attempt.
    expect(result.start).toBe(rank.startedAt);
    expect(result.rules.find((rule) => rule.name === "JobStart")).toMatchObject({
      matchCount: 1,
      finalState: "HEALTHY",
    });
    // Times as the lines arrived: the trainer steps every 100 ms, not one line a second.
    const steps = result.rules.find((rule) => rule.name === "JobHang")?.matches ?? [];
    expect(steps.length).toBeGreaterThan(10);
    const first = steps[0]?.at ?? 0;
    const last = steps.at(-1)?.at ?? 0;
    expect(first).toBeGreaterThanOrEqual(rank.startedAt);
    expect((last - first) / (steps.length - 1)).toBeLessThan(500);
    // The step window is open at the read: when it fires if no step line comes, not a fault.
    expect(result.deadlines).toEqual([{ rule: "JobHang", state: "HANGING", at: expect.any(Number) }]);
    expect(result.deadlines[0]?.at).toBeGreaterThan(rank.readAt);
    expect(result.deadlines[0]?.at).toBeLessThanOrEqual(rank.readAt + 3000);
    expect(stack.operator.live(job)?.restartCount).toBe(restarts);
  });

  it("predicts a hang live rules would raise on the watched rank; an unwatched rank's rules fault nothing", async () => {
    const engineer = await caller("engineer@rebound.local");
    const watched = await engineer.policies.dryRun({
      yaml: STARTS_OFTEN,
      source: { kind: "rank", ...job, rank: 0 },
    });
    expect(watched.fault).toMatchObject({ rule: "starts-often", state: "HANGING" });
    const started = watched.rules[0]?.matches[0]?.at ?? 0;
    expect(watched.fault?.at).toBeGreaterThan(started + 1000);
    expect(watched.fault?.at).toBeLessThanOrEqual(started + 2100);
    expect(watched.nextAction?.action).toBe("in-place restart");
    const unwatched = await engineer.policies.dryRun({
      yaml: STARTS_OFTEN,
      source: { kind: "rank", ...job, rank: 1 },
    });
    expect(unwatched).toMatchObject({ fault: null, nextAction: null, deadlines: [] });
    expect(unwatched.rank).toMatchObject({ rank: 1, localRank: 1, watched: false });
    expect(unwatched.notes[0]).toMatch(
      /^local rank 1 is not watched: .*would not fault the job \(starts-often would turn HANGING/,
    );
  });

  it("reads a rank as reading that job: another team's engineer gets NOT_FOUND, and so does a rank it lacks", async () => {
    const source = { kind: "rank" as const, ...job, rank: 0 };
    const vision = await caller("vision@rebound.local");
    expect(await codeOf(vision.policies.dryRun({ yaml: HANG_AND_NAN, source }))).toBe("NOT_FOUND");
    expect(
      await codeOf(vision.policies.dryRun({ yaml: HANG, source: { kind: "text", text: "" }, job })),
    ).toBe("NOT_FOUND");
    const engineer = await caller("engineer@rebound.local");
    expect(await failure(engineer.policies.dryRun({ yaml: HANG, source: { ...source, rank: 7 } }))).toMatch(
      /^NOT_FOUND: rank: 7 is not a rank of job/,
    );
  });

  it("answers a catastrophic-backtracking pattern on a 100,000-character line within 1 s", async () => {
    const engineer = await caller("engineer@rebound.local");
    const yaml = `logMonitoringConfiguration:\n  - name: evil\n    logPattern: "(a+)+$"\n    faultOnMatch: true\n`;
    const started = performance.now();
    const outcome = await failure(
      engineer.policies.dryRun({ yaml, source: { kind: "text", text: `${"a".repeat(100_000)}!` } }),
    );
    const ms = performance.now() - started;
    console.log(`policies bad input: (a+)+$ on a 100,000-character line answered in ${ms.toFixed(1)} ms`);
    expect(outcome).toBe("allowed");
    expect(ms).toBeLessThan(1000);
  });
});

describe("a job's policy", () => {
  /** forJob until `done` holds (the operator takes a change in within a moment). */
  async function forJobUntil(done: (view: Awaited<ReturnType<typeof read>>) => boolean) {
    let view = await read();
    for (let tries = 0; !done(view) && tries < 50; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      view = await read();
    }
    return view;
  }
  const read = async () => (await caller("engineer@rebound.local")).policies.forJob(job);

  it("applies a version under optimistic concurrency, refuses a stale one and others, and audits it", async () => {
    const id = await created("for-the-job", HANG_AND_NAN);
    const engineer = await caller("engineer@rebound.local");
    const before = await engineer.policies.forJob(job);
    expect(before).toMatchObject({ canApply: true, teamId: llmTeamId, ranks: 2 });
    expect(before.yaml).toContain("JobHang");
    expect((await (await caller("viewer@rebound.local")).policies.forJob(job)).canApply).toBe(false);
    const input = { ...job, policyId: id, version: 1, expectedVersion: before.resourceVersion };
    expect(await codeOf((await caller("viewer@rebound.local")).policies.applyPolicy(input))).toBe(
      "FORBIDDEN",
    );
    expect(await codeOf((await caller("vision@rebound.local")).policies.applyPolicy(input))).toBe(
      "NOT_FOUND",
    );
    const applied = await engineer.policies.applyPolicy(input);
    expect(applied.resourceVersion).not.toBe(before.resourceVersion);
    expect(applied.takesEffect).toMatch(/next/);
    const after = await forJobUntil((view) => view.appliedPolicy !== null);
    expect(after.appliedPolicy).toMatchObject({ id, name: "for-the-job", version: 1 });
    expect(after.yaml).toContain("nan-loss");
    // The version read before the apply is stale now: refused, nothing changes.
    expect(await codeOf(engineer.policies.applyPolicy(input))).toBe("CONFLICT");
    const audit = await db.auditLog.findMany({
      where: { action: "policy.apply", target: `${job.namespace}/${job.name}` },
      select: { details: true, user: { select: { name: true } } },
    });
    expect(audit).toMatchObject([
      { user: { name: "ML Engineer" }, details: { policy: { id, version: 1 }, after: { policy: { id } } } },
    ]);
  });

  it("attaches a shadow and promotes it to enforcing, audited as a promotion", async () => {
    const id = await created("shadowed");
    const engineer = await caller("engineer@rebound.local");
    expect(
      await codeOf((await caller("viewer@rebound.local")).policies.setShadow({ ...job, shadow: null })),
    ).toBe("FORBIDDEN");
    await engineer.policies.setShadow({ ...job, shadow: { policyId: id, version: 1 } });
    const shadowed = await forJobUntil((view) => view.shadow?.policy?.id === id);
    expect(shadowed.shadow?.policy).toMatchObject({ id, version: 1 });
    await engineer.policies.promoteShadow({ ...job, expectedVersion: shadowed.resourceVersion });
    const promoted = await forJobUntil((view) => view.shadow === null && view.appliedPolicy?.id === id);
    expect(promoted).toMatchObject({ shadow: null, appliedPolicy: { id, version: 1 } });
    const actions = await db.auditLog.findMany({
      where: { target: `${job.namespace}/${job.name}`, action: { in: ["policy.shadow", "policy.promote"] } },
      orderBy: { createdAt: "asc" },
      select: { action: true },
    });
    expect(actions.map((row) => row.action)).toEqual(["policy.shadow", "policy.promote"]);
    const listed = await engineer.policies.audit({ job });
    expect(listed.map((entry) => entry.action)).toEqual(
      expect.arrayContaining(["policy.promote", "policy.shadow", "policy.apply"]),
    );
  });
});
