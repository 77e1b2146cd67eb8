import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/server/db/client";
import { type ConsoleStack, startConsoleStack } from "@/server/operator/testing/console-stack";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import type { LocalOperator } from "@/server/operator/testing/local-operator";
import { signOut } from "@/server/services/auth/sessions";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";

/**
 * Team-scoped reads through the console's tRPC API, on a real operator behind its real HTTP API: an
 * engineer of Vision cannot list, open, stream, read the logs or metrics of, or act on an LLM Research job
 * (each answered NOT_FOUND, as for a job that does not exist), while members of LLM Research and cluster
 * admins can; a revoked session's open stream ends within seconds.
 */
let stack: ConsoleStack;
let db: Db;
let operator: LocalOperator;
let source: ClusterSource;
const llm = { namespace: "hyperpod-ns-llm-research", name: "it-scoped-llm" };
const vision = { namespace: "hyperpod-ns-vision", name: "it-scoped-vision" };
const callerFor = (email: string, cluster?: () => ClusterSource) => stack.callerFor(email, cluster);

const codeOf = (error: unknown) => (error instanceof TRPCError ? error.code : String(error));

async function refusedWith(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => "allowed",
    (error: unknown) => codeOf(error),
  );
}

beforeAll(async () => {
  stack = await startConsoleStack({ prefix: "it_jobs_access", nodes: 2, gpusPerNode: 2 });
  ({ db, operator, source } = stack);
  await operator.submit(demoJobYaml({ name: llm.name, nodes: 1, ranks: 1, gpusPerPod: 1 }));
  await operator.submit(
    demoJobYaml({ name: vision.name, nodes: 1, ranks: 1, gpusPerPod: 1, namespace: vision.namespace }),
  );
  await operator.waitFor(
    "both jobs running",
    () => operator.live(llm)?.ranksRunning === 1 && operator.live(vision)?.ranksRunning === 1,
    60_000,
  );
}, 120_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

describe("who sees which jobs", () => {
  it("lists only the jobs of the user's teams; a cluster admin and a viewer of both see both", async () => {
    const names = async (email: string) =>
      (await (await callerFor(email)).caller.jobs.list())
        .map((row) => row.name)
        .filter((name) => name.startsWith("it-scoped"));
    expect(await names("vision@rebound.local")).toEqual([vision.name]);
    expect(await names("engineer@rebound.local")).toEqual([llm.name]);
    expect(await names("viewer@rebound.local")).toEqual([llm.name, vision.name].sort());
    expect(await names("admin@rebound.local")).toEqual([llm.name, vision.name].sort());
  });

  it("answers another team's job page, access, logs and stream as not found", async () => {
    const { caller } = await callerFor("vision@rebound.local");
    const pod = operator.live(llm)?.pods[0]?.name ?? "";
    expect(await refusedWith(caller.jobs.page(llm))).toBe("NOT_FOUND");
    expect(await refusedWith(caller.jobs.access(llm))).toBe("NOT_FOUND");
    expect(await refusedWith(caller.jobs.logs({ job: llm, pod, localRank: 0, tail: 10 }))).toBe("NOT_FOUND");
    const stream = await caller.jobs.watch(llm);
    expect(await refusedWith(stream[Symbol.asyncIterator]().next())).toBe("NOT_FOUND");
    expect(await refusedWith(caller.jobs.act({ job: llm, input: { action: "suspend" } }))).toBe("NOT_FOUND");
    // Its own team's job opens, with its logs.
    expect((await caller.jobs.page(vision)).page.name).toBe(vision.name);
    const visionPod = operator.live(vision)?.pods[0]?.name ?? "";
    expect(await caller.jobs.logs({ job: vision, pod: visionPod, localRank: 0, tail: 10 })).toBeInstanceOf(
      Array,
    );
  });

  it("reads a log only by a rank or one of the job's own pods, refused before the operator is asked (issue 16, item 2)", async () => {
    let logReads = 0;
    const counting = new Proxy(source, {
      get: (target, key, receiver) => {
        const value: unknown = Reflect.get(target, key, receiver);
        if (key !== "logs" || typeof value !== "function") return value;
        return (...args: unknown[]) => {
          logReads += 1;
          return Reflect.apply(value, target, args);
        };
      },
    });
    const { caller: withCounting } = await callerFor("vision@rebound.local", () => counting);
    const llmPod = operator.live(llm)?.pods[0]?.name ?? "";
    const visionPod = operator.live(vision)?.pods[0]?.name ?? "";
    const message = (promise: Promise<unknown>) =>
      promise.then(
        () => "allowed",
        (error: unknown) => (error instanceof TRPCError ? `${error.code}: ${error.message}` : String(error)),
      );
    // The traversal: not a pod name at all.
    const traversal = `${vision.name}-x/../../${llm.namespace}/${llm.name}-w-0`;
    expect(
      await message(withCounting.jobs.logs({ job: vision, pod: traversal, localRank: 0, tail: 10 })),
    ).toMatch(/^BAD_REQUEST: [\s\S]*"path": \[\s*"pod"\s*\][\s\S]*expected a pod name/);
    // Another team's pod, asked through one's own job.
    expect(await message(withCounting.jobs.logs({ job: vision, pod: llmPod, localRank: 0, tail: 10 }))).toBe(
      `NOT_FOUND: pod: "${llmPod}" is not one of job ${vision.namespace}/${vision.name}'s pods`,
    );
    expect(await message(withCounting.jobs.logs({ job: vision, rank: 99, tail: 10 }))).toBe(
      `NOT_FOUND: rank: 99 is not a rank of job ${vision.namespace}/${vision.name}`,
    );
    expect(
      await message(withCounting.jobs.logs({ job: vision, pod: visionPod, localRank: 5, tail: 10 })),
    ).toMatch(/^BAD_REQUEST: localRank: pod .* has local ranks 0-0; got 5$/);
    expect(logReads).toBe(0);
    // By rank, and by its own pod, the log is read.
    expect(await withCounting.jobs.logs({ job: vision, rank: 0, tail: 10 })).toBeInstanceOf(Array);
    expect(
      await withCounting.jobs.logs({ job: vision, pod: visionPod, localRank: 0, tail: 10 }),
    ).toBeInstanceOf(Array);
    expect(logReads).toBe(2);
  });

  it("names on the cluster page only the jobs the user may see", async () => {
    const { caller } = await callerFor("vision@rebound.local");
    const jobs = (await caller.cluster.nodes()).flatMap((node) => node.jobs);
    expect(jobs).toContain(`${vision.namespace}/${vision.name}`);
    expect(jobs).not.toContain(`${llm.namespace}/${llm.name}`);
    expect(
      (await caller.cluster.nodes()).reduce((sum, node) => sum + node.gpusUsed, 0),
    ).toBeGreaterThanOrEqual(2);
  });

  it("ends an open stream within seconds of its session being revoked", async () => {
    const { caller, token } = await callerFor("engineer@rebound.local");
    const stream = (await caller.jobs.watch(llm))[Symbol.asyncIterator]();
    expect((await stream.next()).done).toBe(false);
    await signOut(db, token);
    const revokedAt = Date.now();
    let ended = "open";
    while (Date.now() - revokedAt < 10_000) {
      ended = await refusedWith(stream.next());
      if (ended !== "allowed") break;
    }
    expect(ended).toBe("UNAUTHORIZED");
    expect(Date.now() - revokedAt).toBeLessThan(5_000);
  });

  it("ends an open stream when the user leaves the job's team", async () => {
    const { caller } = await callerFor("lead@rebound.local");
    const stream = (await caller.jobs.watch(llm))[Symbol.asyncIterator]();
    expect((await stream.next()).done).toBe(false);
    const lead = await db.user.findUniqueOrThrow({
      where: { email: "lead@rebound.local" },
      select: { id: true },
    });
    await db.membership.deleteMany({ where: { userId: lead.id } });
    const removedAt = Date.now();
    let ended = "open";
    while (Date.now() - removedAt < 10_000) {
      ended = await refusedWith(stream.next());
      if (ended !== "allowed") break;
    }
    expect(ended).toBe("UNAUTHORIZED");
  });
});

describe("sign-in", () => {
  it("slows an account from one address after 6 wrong passwords, even the right one, and says when to retry", async () => {
    const { caller } = await callerFor("viewer@rebound.local");
    // Five free failures and a sixth, after which this account waits 1 s from this address.
    for (let i = 0; i < 6; i += 1) {
      expect(
        await refusedWith(caller.auth.signIn({ email: "viewer@rebound.local", password: `wrong-${i}` })),
      ).toBe("UNAUTHORIZED");
    }
    const refused = await caller.auth
      .signIn({ email: "viewer@rebound.local", password: "rebound-demo" })
      .catch((error: unknown) => error);
    expect(codeOf(refused)).toBe("TOO_MANY_REQUESTS");
    expect(String((refused as Error).message)).toMatch(
      /too many failed sign-ins for this account from this address: try again in \d+ s/,
    );
    // Another account is unaffected.
    await expect(
      caller.auth.signIn({ email: "admin@rebound.local", password: "rebound-demo" }),
    ).resolves.toMatchObject({
      email: "admin@rebound.local",
    });
  });
});
