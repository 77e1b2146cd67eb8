import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Context } from "@/server/api/context";
import { createCaller } from "@/server/api/root";
import type { Db } from "@/server/db/client";
import type { ShareGrant } from "@/server/domain/access/share";
import { createLogger } from "@/server/log";
import { type ConsoleStack, startConsoleStack } from "@/server/operator/testing/console-stack";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import type { LocalOperator } from "@/server/operator/testing/local-operator";
import { hashShareSecret } from "@/server/services/share-tokens/grants";
import type { TvFrame } from "@/server/services/tv/frame";
import type { TvMessage } from "@/server/services/tv/stream";
import { liveHub } from "@/server/services/wiring";

/**
 * The TV router on a real stack (seeded Postgres, a local operator behind its real HTTP API): frames per
 * view for a team-scoped share token and for a cluster admin, a view outside the token refused, one shared
 * loop per (view, scope), and a revoked token's open stream ended within seconds.
 */
let stack: ConsoleStack;
let db: Db;
let operator: LocalOperator;
const llm = { namespace: "hyperpod-ns-llm-research", name: "it-tv-llm" };
const vision = { namespace: "hyperpod-ns-vision", name: "it-tv-vision" };
const HOUR = 3_600_000;

const codeOf = (error: unknown) => (error instanceof TRPCError ? error.code : String(error));

async function shareCaller(grant: Omit<ShareGrant, "tokenId">) {
  const row = await db.shareToken.create({
    data: {
      tokenHash: hashShareSecret(crypto.randomUUID()),
      label: grant.label,
      views: grant.views,
      allTeams: grant.allTeams,
      teamIds: grant.teamIds,
    },
  });
  const ctx: Context = {
    db,
    user: null,
    sessionToken: undefined,
    share: { ...grant, tokenId: row.id },
    log: createLogger({ test: "tv-router" }),
    setCookie: () => undefined,
    cluster: async () => stack.source,
    clientAddress: "127.0.0.1",
    secure: false,
  };
  return { caller: createCaller(ctx), tokenId: row.id };
}

/** The first frame of a view's stream (and the stream, to read on or close). */
async function firstFrame(stream: AsyncIterable<TvMessage>) {
  const iterator = stream[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done || first.value.kind !== "snapshot")
    throw new Error(`expected a snapshot, got ${JSON.stringify(first.value)}`);
  return { frame: first.value.value, iterator };
}

const frameOf = (message: TvMessage): TvFrame | null =>
  message.kind === "patch" ? message.patch : message.kind === "snapshot" ? message.value : null;

/** Reads frames until one satisfies `ok` (each message after the first is a whole changed frame). */
async function frameWhere(
  iterator: AsyncIterator<TvMessage>,
  ok: (frame: TvFrame) => boolean,
): Promise<TvFrame> {
  for (;;) {
    const next = await iterator.next();
    if (next.done) throw new Error("the stream ended before the frame came");
    const frame = frameOf(next.value);
    if (frame && ok(frame)) return frame;
  }
}

/** The first frame if it already satisfies `ok`, else the first later one that does. */
async function firstOrLater(
  stream: { frame: TvFrame; iterator: AsyncIterator<TvMessage> },
  ok: (frame: TvFrame) => boolean,
): Promise<TvFrame> {
  return ok(stream.frame) ? stream.frame : frameWhere(stream.iterator, ok);
}

/** Runs `during` with Vision's guaranteed GPUs set to `gpus`, then puts the seeded 8 back. */
async function withVisionGpuQuota<T>(gpus: number, during: () => Promise<T>): Promise<T> {
  const where = { quota: { teamId: visionTeamId }, resource: "nvidia.com/gpu" };
  await db.computeQuotaResource.updateMany({ where, data: { guaranteed: gpus } });
  try {
    return await during();
  } finally {
    await db.computeQuotaResource.updateMany({ where, data: { guaranteed: 8 } });
  }
}

/** Reads a stream to its end: the error it ended with, or a note that it ended cleanly. */
async function endOf(iterator: AsyncIterator<unknown>): Promise<unknown> {
  try {
    while (!(await iterator.next()).done) {
      // frames until the stream ends
    }
    return "ended without an error";
  } catch (error) {
    return error;
  }
}

async function restartRow(job: { namespace: string; name: string }, faultAt: number, recoveryMs: number) {
  await db.restartEvent.create({
    data: {
      jobName: job.name,
      namespace: job.namespace,
      ranks: [0],
      pods: [],
      faultReason: "RankCrashed",
      faultAt: new Date(faultAt),
      detectedAt: new Date(faultAt + 100),
      action: "PLR",
      recoveredAt: new Date(faultAt + recoveryMs),
      outcome: "recovered",
    },
  });
}

let visionTeamId = "";

beforeAll(async () => {
  stack = await startConsoleStack({ prefix: "it_tv", nodes: 2, gpusPerNode: 2 });
  ({ db, operator } = stack);
  await operator.submit(demoJobYaml({ name: llm.name, nodes: 1, ranks: 1, gpusPerPod: 1 }));
  await operator.submit(
    demoJobYaml({ name: vision.name, nodes: 1, ranks: 1, gpusPerPod: 1, namespace: vision.namespace }),
  );
  await operator.waitFor(
    "both jobs running",
    () => operator.live(llm)?.ranksRunning === 1 && operator.live(vision)?.ranksRunning === 1,
    60_000,
  );
  const now = Date.now();
  await restartRow(vision, now - 2 * HOUR, 3_000);
  await restartRow(llm, now - HOUR, 5_000);
  await restartRow(llm, now - 25 * HOUR, 60_000); // older than the window
  visionTeamId = (await db.team.findUniqueOrThrow({ where: { name: "vision" } })).id;
}, 120_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

describe("tv.views", () => {
  it("lists a token's views, and every view for a signed-in user", async () => {
    const { caller } = await shareCaller({
      label: "lobby",
      views: ["jobs", "cluster"],
      allTeams: true,
      teamIds: [],
    });
    expect(await caller.tv.views()).toEqual({
      views: ["cluster", "jobs"],
      viewer: { kind: "share", label: "lobby" },
    });
    const admin = (await stack.callerFor("admin@rebound.local")).caller;
    expect((await admin.tv.views()).views).toEqual(["cluster", "jobs", "reliability", "incidents"]);
  });
});

describe("tv.frame", () => {
  it("refuses a view the token does not include, naming it", async () => {
    const { caller } = await shareCaller({
      label: "jobs only",
      views: ["jobs"],
      allTeams: true,
      teamIds: [],
    });
    const stream = await caller.tv.frame({ view: "reliability" });
    const refusal = await stream[Symbol.asyncIterator]()
      .next()
      .catch((error: unknown) => error);
    expect(codeOf(refusal)).toBe("FORBIDDEN");
    expect((refusal as Error).message).toBe("this token does not include the reliability view");
  });

  it("shows a team token only its team's jobs, GPUs and faults; a cluster admin everything", async () => {
    const { caller } = await shareCaller({
      label: "vision wall",
      views: ["jobs", "cluster", "reliability"],
      allTeams: false,
      teamIds: [visionTeamId],
    });
    const jobs = await firstFrame(await caller.tv.frame({ view: "jobs" }));
    expect(jobs.frame.view).toBe("jobs");
    if (jobs.frame.view !== "jobs") return;
    expect(jobs.frame.jobs.map((job) => job.name)).toEqual([vision.name]);
    expect(jobs.frame.jobs[0]).toMatchObject({
      phase: "Running",
      ranksTotal: 1,
      team: "Vision",
      restarts: 0,
    });
    expect(jobs.frame.counts).toEqual({ running: 1, pending: 0, failed: 0 });
    expect(typeof jobs.frame.build).toBe("string");
    // The rank is healthy once it steps (in the first frame already, or in a later one).
    const healthy = await firstOrLater(
      jobs,
      (frame) => frame.view === "jobs" && frame.jobs[0]?.ranksHealthy === 1,
    );
    expect(healthy.view === "jobs" && healthy.jobs[0]?.goodput).toBe(1);
    await jobs.iterator.return?.();

    const cluster = await firstFrame(await caller.tv.frame({ view: "cluster" }));
    if (cluster.frame.view !== "cluster") throw new Error("expected the cluster frame");
    expect(cluster.frame.teams.map((team) => team.team)).toEqual(["vision"]);
    expect(cluster.frame.teams[0]).toMatchObject({ used: 1, quota: 8 });
    // A change arrives as a new frame on the open stream: the team's GPU quota, 8 → 6, and back.
    const changed = await withVisionGpuQuota(6, () =>
      frameWhere(cluster.iterator, (frame) => frame.view === "cluster" && frame.teams[0]?.quota === 6),
    );
    expect(changed.view === "cluster" && changed.teams[0]?.used).toBe(1);
    await cluster.iterator.return?.();

    const reliability = await firstFrame(await caller.tv.frame({ view: "reliability" }));
    if (reliability.frame.view !== "reliability") throw new Error("expected the reliability frame");
    expect(reliability.frame.stats).toMatchObject({ faults: 1, recovered: 1, mttrMs: 3_000 });
    expect(["ok", "unavailable"]).toContain(reliability.frame.throughput.status);
    await reliability.iterator.return?.();

    const admin = (await stack.callerFor("admin@rebound.local")).caller;
    const all = await firstFrame(await admin.tv.frame({ view: "reliability" }));
    if (all.frame.view !== "reliability") throw new Error("expected the reliability frame");
    expect(all.frame.stats).toMatchObject({ faults: 2, recovered: 2, mttrMs: 4_000 });
    await all.iterator.return?.();
  });

  it("runs one loop for every viewer of a view and scope", async () => {
    const before = liveHub().stats().loops;
    const viewers = await Promise.all(
      ["a", "b", "c"].map(async (label) => {
        const { caller } = await shareCaller({ label, views: ["incidents"], allTeams: true, teamIds: [] });
        return firstFrame(await caller.tv.frame({ view: "incidents" }));
      }),
    );
    expect(liveHub().stats().loops).toBe(before + 1);
    for (const viewer of viewers) await viewer.iterator.return?.();
    expect(liveHub().stats().loops).toBe(before);
  });

  it("ends a revoked token's open stream within seconds with UNAUTHORIZED", async () => {
    const { caller, tokenId } = await shareCaller({
      label: "doomed",
      views: ["cluster"],
      allTeams: true,
      teamIds: [],
    });
    const { iterator } = await firstFrame(await caller.tv.frame({ view: "cluster" }));
    await db.shareToken.update({ where: { id: tokenId }, data: { revokedAt: new Date() } });
    const started = Date.now();
    const error = await endOf(iterator);
    expect(codeOf(error)).toBe("UNAUTHORIZED");
    expect((error as Error).message).toBe("this TV's share token was revoked");
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});
