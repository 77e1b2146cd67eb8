import { describe, expect, it } from "vitest";
import type { ClusterJob, ClusterPod } from "@/server/cluster/types";
import { parseJobYaml } from "@/server/domain/job-spec/parse-job";
import type { StartRequestBody } from "@/server/operator/agent-client";
import type { JobContext } from "./deps";
import { readState } from "./job-state";
import { expectedPods } from "./observe";
import { startAgents } from "./steps";

/**
 * `/start`'s rankIps carry each pod's own address (docs/hyperpod-compatibility.md, "The agent protocol"), not
 * rank 0's.
 */
const parsed = parseJobYaml(`apiVersion: sagemaker.amazonaws.com/v1
kind: HyperPodPyTorchJob
metadata:
  name: demo
spec:
  replicaSpecs:
    - name: pods
      replicas: 3
      template: { spec: { containers: [{ name: main, command: [hyperpodrun, train.py] }] } }
`);
if (!parsed.ok) throw new Error("fixture does not parse");
const job: ClusterJob = {
  ref: { namespace: "ns", name: "demo" },
  uid: "u",
  generation: 1,
  createdAt: new Date(0),
  object: parsed.job,
  status: {},
  deleting: false,
};

function pod(index: number, ip: string | null): ClusterPod {
  return {
    name: `demo-pods-${index}`,
    namespace: "ns",
    job: "demo",
    replicaSpec: "pods",
    index,
    node: `node-${index}`,
    phase: "Running",
    agentUrl: `http://agent-${index}:8080`,
    ip,
    createdAt: 0,
    finishedAt: null,
  };
}

async function startBodies(ips: Array<string | null>): Promise<Map<string, StartRequestBody>> {
  const sent = new Map<string, StartRequestBody>();
  const ctx = {
    deps: {
      backend: { rendezvous: async (rank0: ClusterPod) => ({ addr: rank0.ip ?? "none", port: "29500" }) },
      agents: {
        start: async (url: string, body: StartRequestBody) => {
          sent.set(url, body);
          return { ok: true, value: null };
        },
      },
    },
    job,
    obs: {
      now: 0,
      job,
      nodes: [],
      strays: [],
      pods: expectedPods(job).map((expected, index) => ({
        expected,
        pod: pod(index, ips[index] ?? null),
        agent: { kind: "status", status: { status: "ready" } },
      })),
    },
    status: {},
    state: readState({}, 0),
    saved: {},
    now: 0,
    ranksPerNode: 1,
  } as unknown as JobContext;
  await startAgents(ctx);
  return sent;
}

describe("startAgents: rankIps", () => {
  it("gives every rank its own pod's address, master_addr rank 0's", async () => {
    const sent = await startBodies(["10.0.0.1", "10.0.0.2", "10.0.0.3"]);
    expect(sent.size).toBe(3);
    for (const body of sent.values()) {
      expect(body.master_addr).toBe("10.0.0.1");
      expect(body.rankIps).toEqual([
        { ip: "10.0.0.1", rank: 0 },
        { ip: "10.0.0.2", rank: 1 },
        { ip: "10.0.0.3", rank: 2 },
      ]);
    }
    expect(sent.get("http://agent-1:8080")?.rank).toBe(1);
  });

  it("leaves out a pod whose address is not known yet rather than send a wrong one", async () => {
    const sent = await startBodies(["10.0.0.1", null, "10.0.0.3"]);
    expect(sent.get("http://agent-0:8080")?.rankIps).toEqual([
      { ip: "10.0.0.1", rank: 0 },
      { ip: "10.0.0.3", rank: 2 },
    ]);
  });
});
