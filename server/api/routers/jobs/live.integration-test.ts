import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Context } from "@/server/api/context";
import { createCaller } from "@/server/api/root";
import type { Db } from "@/server/db/client";
import { jobRowList, nodeRowList } from "@/server/domain/live/lists";
import { applyTail } from "@/server/domain/live/tail-diff";
import { createLogger } from "@/server/log";
import { type ConsoleStack, startConsoleStack } from "@/server/operator/testing/console-stack";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import type { LocalOperator } from "@/server/operator/testing/local-operator";
import { signIn, signOut } from "@/server/services/auth/sessions";
import { liveHub } from "@/server/services/wiring";

/**
 * The live views by push (issue 13) through the console's tRPC API, on a real operator behind its real HTTP
 * API: the jobs list, the cluster's nodes and a rank's log arrive whole and then as diffs from ONE server
 * loop per scope (or per job, per rank) however many viewers; each viewer sees only what it may read, a new
 * job reaches an open list, and a revoked session's stream ends.
 */
let stack: ConsoleStack;
let db: Db;
let operator: LocalOperator;
const llm = { namespace: "hyperpod-ns-llm-research", name: "it-live-llm" };
const vision = { namespace: "hyperpod-ns-vision", name: "it-live-vision" };
const viewers: Array<{ close(): Promise<void> }> = [];

/** A caller whose streams end as a browser's closed stream does: its signal aborts, then each is returned. */
async function liveCaller(email: string) {
  const result = await signIn(db, { email, password: "rebound-demo" });
  if (!result.ok) throw new Error(result.reason);
  const controller = new AbortController();
  const iterators: Array<AsyncIterator<unknown>> = [];
  const ctx: Context = {
    db,
    user: result.user,
    sessionToken: result.token,
    share: null,
    log: createLogger({ test: "it_live" }),
    setCookie: () => undefined,
    cluster: async () => stack.source,
    clientAddress: "127.0.0.1",
    secure: false,
  };
  const viewer = {
    caller: createCaller(ctx, { signal: controller.signal }),
    token: result.token,
    open<M>(iterable: AsyncIterable<M>): AsyncIterator<M> {
      const iterator = iterable[Symbol.asyncIterator]();
      iterators.push(iterator);
      return iterator;
    },
    async close() {
      controller.abort();
      await Promise.all(iterators.map((iterator) => iterator.return?.().catch(() => undefined)));
    },
  };
  viewers.push(viewer);
  return viewer;
}

type Message<T, P> =
  | { kind: "snapshot"; value: T }
  | { kind: "patch"; patch: P }
  | { kind: "unavailable"; message: string };

/** The value a viewer holds after one more message. */
function applied<T, P>(value: T | null, message: Message<T, P>, apply: (value: T, patch: P) => T): T | null {
  if (message.kind === "snapshot") return message.value;
  if (message.kind === "patch" && value !== null) return apply(value, message.patch);
  return value;
}

/** Reads a stream, applying its messages, until `until` holds of the value (or the time is up). */
async function follow<T, P>(opts: {
  stream: AsyncIterator<Message<T, P>>;
  apply: (value: T, patch: P) => T;
  until: (value: T) => boolean;
  timeoutMs?: number;
  value?: T | null;
}): Promise<{ value: T; messages: Array<Message<T, P>["kind"]> }> {
  let value: T | null = opts.value ?? null;
  const messages: Array<Message<T, P>["kind"]> = [];
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const result = await opts.stream.next();
    if (result.done) throw new Error("the stream ended");
    messages.push(result.value.kind);
    value = applied(value, result.value, opts.apply);
    if (value !== null && opts.until(value)) return { value, messages };
  }
  throw new Error(`not seen within ${timeoutMs} ms: ${messages.join(", ")}`);
}

const codeOf = (error: unknown) => (error instanceof TRPCError ? error.code : String(error));
const named = (rows: Array<{ name: string }>) =>
  rows.map((row) => row.name).filter((name) => name.startsWith("it-live"));

beforeAll(async () => {
  stack = await startConsoleStack({ prefix: "it_live_push", nodes: 2, gpusPerNode: 4 });
  ({ db, operator } = stack);
  await operator.submit(demoJobYaml({ name: llm.name, nodes: 1, ranks: 2, gpusPerPod: 2, tee: true }));
  await operator.waitFor("the LLM job running", () => operator.live(llm)?.ranksRunning === 2, 60_000);
}, 120_000);

afterAll(async () => {
  for (const viewer of viewers) await viewer.close();
  await stack?.stop();
}, 60_000);

describe("the jobs list by push", () => {
  it("sends each viewer its readable rows, then a new job as a diff, from one loop per scope", async () => {
    const engineer = await liveCaller("engineer@rebound.local");
    const lead = await liveCaller("lead@rebound.local");
    const visionEngineer = await liveCaller("vision@rebound.local");
    const streams = await Promise.all(
      [engineer, lead, visionEngineer].map(async (viewer) =>
        viewer.open(await viewer.caller.jobs.listWatch()),
      ),
    );
    const [forEngineer, forLead, forVision] = streams as [
      (typeof streams)[0],
      (typeof streams)[0],
      (typeof streams)[0],
    ];
    const first = await follow({ stream: forEngineer, apply: jobRowList.apply, until: () => true });
    expect(first.messages).toEqual(["snapshot"]);
    expect(named(first.value)).toEqual([llm.name]);
    const leadFirst = await follow({ stream: forLead, apply: jobRowList.apply, until: () => true });
    expect(named(leadFirst.value)).toEqual([llm.name]);
    const visionFirst = await follow({ stream: forVision, apply: jobRowList.apply, until: () => true });
    expect(named(visionFirst.value)).toEqual([]);
    // Engineer and lead read the same namespaces: one loop; the Vision engineer another.
    expect(liveHub().stats().loops).toBe(2);

    await operator.submit(
      demoJobYaml({ name: vision.name, nodes: 1, ranks: 1, gpusPerPod: 1, namespace: vision.namespace }),
    );
    const seen = await follow({
      stream: forVision,
      apply: jobRowList.apply,
      value: visionFirst.value,
      until: (rows) => named(rows).includes(vision.name),
    });
    expect(seen.messages).not.toContain("snapshot");
    expect(named(seen.value)).toEqual([vision.name]);
    // The LLM team's list does not name it: a late viewer of that loop gets its current rows whole.
    const late = await liveCaller("engineer@rebound.local");
    const lateFirst = await follow({
      stream: late.open(await late.caller.jobs.listWatch()),
      apply: jobRowList.apply,
      until: () => true,
    });
    expect(lateFirst.messages).toEqual(["snapshot"]);
    expect(named(lateFirst.value)).toEqual([llm.name]);
    expect(liveHub().stats().loops).toBe(2);
    await late.close();
    for (const viewer of [engineer, lead, visionEngineer]) await viewer.close();
  });

  it("ends an open list within seconds of its session being revoked", async () => {
    const viewer = await liveCaller("viewer@rebound.local");
    const stream = viewer.open(await viewer.caller.jobs.listWatch());
    expect((await stream.next()).value).toMatchObject({ kind: "snapshot" });
    await signOut(db, viewer.token);
    const revokedAt = Date.now();
    const ended = await (async () => {
      for (;;) {
        const outcome = await stream.next().then(
          () => "open",
          (error: unknown) => codeOf(error),
        );
        if (outcome !== "open") return outcome;
      }
    })();
    expect(ended).toBe("UNAUTHORIZED");
    expect(Date.now() - revokedAt).toBeLessThan(5_000);
  });
});

describe("the cluster's nodes by push", () => {
  it("names only the viewer's jobs on each node, GPUs counting every job", async () => {
    await operator.waitFor("the Vision job running", () => operator.live(vision)?.ranksRunning === 1, 60_000);
    const viewer = await liveCaller("vision@rebound.local");
    const stream = viewer.open(await viewer.caller.cluster.nodesWatch());
    const { value } = await follow({
      stream,
      apply: nodeRowList.apply,
      until: (nodes) => nodes.some((node) => node.jobs.includes(`${vision.namespace}/${vision.name}`)),
    });
    expect(value.flatMap((node) => node.jobs)).not.toContain(`${llm.namespace}/${llm.name}`);
    expect(value.reduce((sum, node) => sum + node.gpusUsed, 0)).toBeGreaterThanOrEqual(3);
    await viewer.close();
  });
});

describe("a rank's log by push", () => {
  it("sends the tail whole, then the lines that arrived, one loop for every viewer of the rank", async () => {
    const pod = operator.live(llm)?.pods[0]?.name ?? "";
    const input = { job: llm, pod, localRank: 1, tail: 50 };
    const a = await liveCaller("engineer@rebound.local");
    const b = await liveCaller("admin@rebound.local");
    const loopsBefore = liveHub().stats().loops;
    const streamA = a.open(await a.caller.jobs.logsWatch(input));
    const streamB = b.open(await b.caller.jobs.logsWatch(input));
    const stepOf = (lines: Array<{ text: string }>) =>
      Number(/step=(\d+)/.exec(lines.at(-1)?.text ?? "")?.[1] ?? Number.NaN);
    const first = await follow({ stream: streamA, apply: applyTail, until: (lines) => lines.length > 0 });
    const later = await follow({
      stream: streamA,
      apply: applyTail,
      value: first.value,
      until: (lines) => stepOf(lines) > stepOf(first.value),
    });
    expect(later.messages).toContain("patch");
    expect(later.value.length).toBeLessThanOrEqual(50);
    await follow({ stream: streamB, apply: applyTail, until: (lines) => lines.length > 0 });
    expect(liveHub().stats().loops).toBe(loopsBefore + 1);
    await a.close();
    await b.close();
  });

  it("refuses another team's job, and a pod that is not the job's, before any log is read", async () => {
    const viewer = await liveCaller("vision@rebound.local");
    const { caller } = viewer;
    const llmPod = operator.live(llm)?.pods[0]?.name ?? "";
    const visionPod = operator.live(vision)?.pods[0]?.name ?? "";
    const first = async (input: Parameters<typeof caller.jobs.logsWatch>[0]) =>
      viewer
        .open(await caller.jobs.logsWatch(input))
        .next()
        .then(
          () => "allowed",
          (error: unknown) => codeOf(error),
        );
    expect(await first({ job: llm, pod: llmPod, localRank: 0, tail: 10 })).toBe("NOT_FOUND");
    expect(await first({ job: vision, pod: llmPod, localRank: 0, tail: 10 })).toBe("NOT_FOUND");
    expect(await first({ job: vision, pod: visionPod, localRank: 0, tail: 10 })).toBe("allowed");
  });
});

describe("a job page by push", () => {
  it("serves every viewer of a job from one loop, whole first", async () => {
    const before = liveHub().stats();
    const pair = await Promise.all(["engineer@rebound.local", "admin@rebound.local"].map(liveCaller));
    const streams = await Promise.all(
      pair.map(async (viewer) => viewer.open(await viewer.caller.jobs.watch(llm))),
    );
    for (const stream of streams) {
      expect((await stream.next()).value).toMatchObject({ kind: "snapshot", value: { name: llm.name } });
    }
    expect(liveHub().stats().loops).toBe(before.loops + 1);
    expect(liveHub().stats().viewers).toBe(before.viewers + 2);
    for (const viewer of pair) await viewer.close();
  });
});
