import { describe, expect, it } from "vitest";
import type { ClusterJob, ClusterPod } from "@/server/cluster/types";
import { parseJobYaml } from "@/server/domain/job-spec/parse-job";
import { createAgentClient, type StartRequestBody } from "@/server/operator/agent-client";
import { type AgentRequest, bodyBytes, bodyText } from "@/server/operator/agent-transport";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import type { JobContext } from "./deps";
import { readState } from "./job-state";
import { expectedPods } from "./observe";
import { type StartExtras, startAgents, startBodySerialisations, stopAgents } from "./steps";

/**
 * /start bodies share their job-wide parts (steps.ts): the bytes on the wire are still exactly what
 * JSON.stringify gave the whole body when each agent's body was built on its own (`legacyBody`, the
 * builder as it was), and the job-wide part is serialised once per membership version, not per agent.
 */

const parsed = parseJobYaml(demoJobYaml({ name: "demo", nodes: 4, ranks: 2 }));
if (!parsed.ok) throw new Error("fixture does not parse");
const spec = parsed.job;

function jobOf(uid: string): ClusterJob {
  return {
    ref: { namespace: "ns", name: "demo" },
    uid,
    generation: 1,
    createdAt: new Date(0),
    object: spec,
    status: {},
    deleting: false,
  };
}

function pod(index: number, ip: string | null): ClusterPod {
  return {
    name: `demo-workers-${index}`,
    namespace: "ns",
    job: "demo",
    replicaSpec: "workers",
    index,
    node: `node-${index}`,
    phase: "Running",
    agentUrl: `http://agent-${index}:8080`,
    ip,
    createdAt: 0,
    finishedAt: null,
  };
}

type Sent = { method: string; url: string; body: string | undefined };

/** The real agent client over a transport that records each request and answers 200. */
function recordingClient(sent: Sent[]) {
  return createAgentClient({
    timeoutMs: 1000,
    transport: async (req: AgentRequest) => {
      const body = req.body === undefined ? undefined : bodyText(req.body);
      // The Content-Length the transport sends is the text's own length in bytes.
      if (req.body !== undefined && bodyBytes(req.body) !== Buffer.byteLength(body ?? ""))
        throw new Error("Content-Length differs from the body's bytes");
      sent.push({ method: req.method, url: req.url, body });
      return { ok: true, value: { status: 200, text: "" } };
    },
  });
}

function context(opts: { uid: string; ips: Array<string | null>; sent: Sent[]; restartCount?: number }) {
  const job = jobOf(opts.uid);
  return {
    deps: {
      backend: { rendezvous: async (rank0: ClusterPod) => ({ addr: rank0.ip ?? "none", port: "29500" }) },
      agents: recordingClient(opts.sent),
      config: { stopTimeoutSeconds: 10 },
    },
    job,
    obs: {
      now: 0,
      job,
      nodes: [],
      strays: [],
      pods: expectedPods(job).map((expected, index) => ({
        expected,
        pod: pod(index, opts.ips[index] ?? null),
        agent: { kind: "status", status: { status: "ready" } },
      })),
    },
    status: { restartCount: opts.restartCount ?? 0 },
    state: readState({}, 0),
    saved: {},
    now: 1_700_000_000_000,
    ranksPerNode: 2,
  } as unknown as JobContext;
}

/** steps.ts's startBody before the job-wide parts were shared: one whole body per agent. */
function legacyBody(ctx: JobContext, groupRank: number, extras: StartExtras): StartRequestBody {
  const rendezvous = ctx.state.rendezvous;
  if (!rendezvous) throw new Error("no rendezvous");
  return {
    rank: groupRank,
    nnodes: ctx.obs.pods.length,
    faultCount: ctx.status.restartCount ?? 0,
    master_addr: rendezvous.addr,
    master_port: rendezvous.port,
    log_monitoring_configuration: ctx.job.object.spec.runPolicy?.logMonitoringConfiguration ?? [],
    ipVersion: rendezvous.ipVersion,
    rankIps: ctx.obs.pods.flatMap((other) =>
      other.pod?.ip ? [{ ip: other.pod.ip, rank: other.expected.groupRank }] : [],
    ),
    spare: false,
    progress: {},
    ...(extras.workerData ? { worker_data: [...extras.workerData] } : {}),
  };
}

const starts = (sent: Sent[]) => sent.filter((request) => request.url.endsWith("/start"));

function setReady(ctx: JobContext, indexes: number[]) {
  for (const index of indexes) {
    const view = ctx.obs.pods[index];
    if (view) ctx.obs.pods[index] = { ...view, agent: { kind: "status", status: { status: "ready" } } };
  }
}

describe("/start bodies with shared job-wide parts", () => {
  const cases: Array<{ name: string; ips: Array<string | null>; extras: StartExtras; restartCount: number }> =
    [
      {
        name: "every address known",
        ips: ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"],
        extras: {},
        restartCount: 0,
      },
      {
        name: "an address not known yet",
        ips: ["10.0.0.1", null, "10.0.0.3", "10.0.0.4"],
        extras: {},
        restartCount: 2,
      },
      {
        name: "in-process worker_data",
        ips: ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"],
        extras: {
          workerData: [
            { rank: 0, group_rank: 0, local_rank: 0, data: { step: 7, peer: 'a"b' } },
            { rank: 1 },
          ],
        },
        restartCount: 1,
      },
    ];
  for (const testCase of cases) {
    it(`sends the bytes the whole-body builder sent (${testCase.name})`, async () => {
      const sent: Sent[] = [];
      const ctx = context({
        uid: `bytes-${testCase.name}`,
        ips: testCase.ips,
        sent,
        restartCount: testCase.restartCount,
      });
      expect(await startAgents(ctx, testCase.extras)).toBe(true);
      const bodies = starts(sent);
      expect(bodies).toHaveLength(4);
      for (const view of ctx.obs.pods) {
        const request = bodies.find((candidate) => candidate.url === `${view.pod?.agentUrl}/start`);
        const expected = legacyBody(ctx, view.expected.groupRank, testCase.extras);
        expect(request?.body).toBe(JSON.stringify(expected));
        expect(JSON.parse(request?.body ?? "null")).toEqual(expected);
      }
    });
  }

  it("serialises the job-wide part once for all agents, and again only when the membership changes", async () => {
    const sent: Sent[] = [];
    const ctx = context({ uid: "once", ips: ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"], sent });
    const before = startBodySerialisations();
    await startAgents(ctx);
    expect(starts(sent)).toHaveLength(4);
    expect(startBodySerialisations() - before).toBe(1);

    // Two agents come back READY in a later reconcile of the same attempt: same membership, no new text.
    setReady(ctx, [1, 2]);
    await startAgents(ctx);
    expect(starts(sent)).toHaveLength(6);
    expect(startBodySerialisations() - before).toBe(1);

    // A replaced pod has a new address: a new membership version, serialised once more.
    const replaced = ctx.obs.pods[3]?.pod;
    if (replaced) replaced.ip = "10.0.0.44";
    setReady(ctx, [3]);
    await startAgents(ctx);
    expect(startBodySerialisations() - before).toBe(2);
    const last = starts(sent).at(-1)?.body ?? "";
    expect(JSON.parse(last).rankIps).toContainEqual({ ip: "10.0.0.44", rank: 3 });
  });

  it("hands every agent the same job-wide objects, not a copy each", async () => {
    const bodies: StartRequestBody[] = [];
    const ctx = context({ uid: "shared", ips: ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"], sent: [] });
    const client = ctx.deps.agents;
    (ctx.deps as { agents: unknown }).agents = {
      ...client,
      start: async (url: string, body: StartRequestBody) => {
        bodies.push(body);
        return client.start(url, body);
      },
    };
    const workerData = [{ rank: 0 }, { rank: 1 }];
    await startAgents(ctx, { workerData });
    expect(bodies).toHaveLength(4);
    const [first, second] = bodies;
    expect(first?.rankIps).toBe(second?.rankIps);
    expect(first?.worker_data).toBe(workerData);
    expect(second?.worker_data).toBe(workerData);
    expect(new Set(bodies.map((body) => body.rank))).toEqual(new Set([0, 1, 2, 3]));
  });

  it("writes every agent's job-wide part from one encoded Buffer, not a copy each", async () => {
    const parts: Array<readonly (string | Buffer)[]> = [];
    const ctx = context({ uid: "bytes", ips: ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"], sent: [] });
    (ctx.deps as { agents: unknown }).agents = createAgentClient({
      timeoutMs: 1000,
      transport: async (req: AgentRequest) => {
        if (req.url.endsWith("/start") && typeof req.body !== "string" && req.body) parts.push(req.body);
        return { ok: true, value: { status: 200, text: "" } };
      },
    });
    await startAgents(ctx);
    expect(parts).toHaveLength(4);
    const shared = parts.map((body) => body.find((part) => Buffer.isBuffer(part)));
    expect(shared[0]).toBeInstanceOf(Buffer);
    for (const buffer of shared) expect(buffer).toBe(shared[0]);
  });

  it("sends at most 64 agent calls at once", async () => {
    const many = Array.from({ length: 200 }, (_, index) => `10.1.${Math.floor(index / 250)}.${index % 250}`);
    const parsedMany = parseJobYaml(demoJobYaml({ name: "demo", nodes: 200, ranks: 1 }));
    if (!parsedMany.ok) throw new Error("fixture does not parse");
    const ctx = context({ uid: "bounded", ips: many, sent: [] });
    ctx.job.object = parsedMany.job;
    ctx.obs.pods = expectedPods(ctx.job).map((expected, index) => ({
      expected,
      pod: pod(index, many[index] ?? null),
      agent: { kind: "status", status: { status: "running" } },
    }));
    let inFlight = 0;
    let most = 0;
    const counted = async () => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 1));
      inFlight -= 1;
      return { ok: true as const, value: null };
    };
    (ctx.deps as { agents: unknown }).agents = { start: counted, stop: counted };
    await stopAgents(ctx);
    expect(most).toBe(64);
    setReady(
      ctx,
      ctx.obs.pods.map((_, index) => index),
    );
    most = 0;
    await startAgents(ctx);
    expect(most).toBe(64);
  });
});
