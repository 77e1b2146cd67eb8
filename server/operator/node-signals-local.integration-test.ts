import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { entrySentence } from "@/components/charts/timeline-text";
import type { JobRef } from "@/server/cluster/types";
import { timelineEntries } from "@/server/services/jobs/job-view";
import { listRestartEvents } from "@/server/store/restart-events/queries";
import { childEnv } from "@/test/child-env";
import { createSeededTestDatabase } from "@/test/database";
import { handleRequest } from "./api/routes";
import { demoJobYaml } from "./testing/jobs";
import { type LocalOperator, startLocalOperator } from "./testing/local-operator";

/**
 * A node fault said by a source other than HyperPod's label, injected with `npx rebound fault <job> node
 * --source …` against a real local operator (real agents, workers, PostgreSQL): the local back end sets
 * that source's fact on the node of one of the job's pods, the node-signal table judges it as on
 * Kubernetes, and the operator replaces only that pod, on another node, with a restart record, an event and
 * a timeline line that name the source and its reason.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
const ref: JobRef = { namespace: "hyperpod-ns-llm-research", name: "it-node-signals" };
let database: { url: string; drop: () => Promise<void> };
let operator: LocalOperator;
let server: Server;
let base: string;

beforeAll(async () => {
  database = await createSeededTestDatabase("it_node_signals");
  // Four nodes: each fault leaves its node unusable (no reboot here), the job needs two more.
  operator = await startLocalOperator({ databaseUrl: database.url, nodes: 4, gpusPerNode: 4 });
  const deps = operator.deps;
  server = createServer(
    (req, res) => void handleRequest({ req, res, deps, auth: operator.auth, healthy: () => true }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  server?.close();
  await operator?.stop();
  await database?.drop();
}, 60_000);

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, "bin/rebound.mjs"), ...args, "--operator", base], {
      cwd: ROOT,
      env: childEnv({ REBOUND_DATA_DIR: operator.dataDir, REBOUND_OPERATOR_TOKEN: "" }),
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

const allRanksRunning = () => {
  const live = operator.live(ref);
  return live?.phase === "Running" && live.ranksRunning === 8 && live.recovery === null ? live : null;
};

async function podsByGroup() {
  const pods = await operator.backend.listPods(ref);
  return new Map(pods.map((pod) => [pod.index, pod]));
}

describe("rebound fault <job> node --source", () => {
  it("starts the demo job, 2 pods × 4 ranks on two nodes", async () => {
    await operator.submit(demoJobYaml({ name: ref.name, nodes: 2, ranks: 4 }));
    const live = await operator.waitFor("8 running ranks", allRanksRunning, 60_000);
    expect(new Set(live.pods.map((pod) => pod.node)).size).toBe(2);
  }, 90_000);

  it("refuses an unknown source and a source on another kind, naming the field", async () => {
    const unknown = await cli(["fault", ref.name, "node", "--source", "meteor", "-n", ref.namespace]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(
      "source: expected one of hyperpod, nvsentinel, npd, eks, dcgm, device-plugin, cordon, not-ready",
    );
    const crash = await cli(["fault", ref.name, "crash", "--source", "npd", "-n", ref.namespace]);
    expect(crash.code).toBe(1);
    expect(crash.stderr).toContain("--source goes with a node fault only");
    const response = await fetch(`${base}/api/v1/jobs/${ref.namespace}/${ref.name}/faults`, {
      method: "POST",
      headers: { authorization: `Bearer ${operator.token}`, "content-type": "application/json" },
      body: JSON.stringify({ kind: "crash", source: "npd" }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toBe(
      "source: a source goes with kind node only",
    );
    expect(operator.live(ref)?.restartCount ?? 0).toBe(0);
  }, 30_000);

  const SOURCES = [
    { source: "npd", names: "node-problem-detector: KernelDeadlock — kernel: INFO: task docker" },
    {
      source: "nvsentinel",
      names: "NVSentinel: GpuMemWatch — ErrorCode:DCGM_FR_VOLATILE_DBE_DETECTED GPU:0",
    },
  ] as const;

  it.each(SOURCES.map((each, index) => ({ ...each, count: index + 1 })))(
    "--source $source on the node of rank 4 replaces only its pod, on another node, and says who said so",
    async ({ source, names, count }) => {
      const before = await podsByGroup();
      const failed = before.get(1);
      const kept = before.get(0);
      const injectedAt = Date.now();
      const result = await cli([
        "fault",
        ref.name,
        "node",
        "--rank",
        "4",
        "--source",
        source,
        "-n",
        ref.namespace,
      ]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(`"source":"${source}"`);
      expect(result.stdout).toContain(names);
      // The node now reads as the table says, for the console too.
      const nodes = (await (
        await fetch(`${base}/api/v1/nodes`, { headers: { authorization: `Bearer ${operator.token}` } })
      ).json()) as { nodes: Array<{ name: string; verdict?: { source: string; reason: string } }> };
      expect(nodes.nodes.find((node) => node.name === failed?.node)?.verdict).toMatchObject({ source });

      const replaced = await operator.waitFor(
        "the pod replaced on another node",
        async () => {
          const pod = (await podsByGroup()).get(1);
          return pod && pod.createdAt > injectedAt && pod.node !== failed?.node ? pod : null;
        },
        30_000,
      );
      await operator.waitFor("ranks back", allRanksRunning, 60_000);
      const backMs = Date.now() - injectedAt;
      const event = await operator.waitFor("the restart recorded", async () => {
        const events = await listRestartEvents(operator.db, { namespace: ref.namespace, jobName: ref.name });
        const last = events[count - 1];
        return last && last.outcome !== "pending" ? last : null;
      });
      expect(event).toMatchObject({
        faultReason: "NodeFault",
        action: "POD_REPLACEMENT",
        outcome: "recovered",
        node: failed?.node,
        pods: [failed?.name],
      });
      // HyperPod's remediation message, then what was found: who said so, and why.
      expect(event.message).toMatch(/^The fault of reason NodeFault was remediated in \d+ milliseconds\. /);
      expect(event.message).toContain(
        `Found unhealthy node ${failed?.node} (${operator.backend.nodes.get(failed?.node ?? "")?.verdict?.reason})`,
      );
      expect(event.message).toContain(names);
      // The restart timeline's line for it, as the job page lists it.
      const [line] = timelineEntries([event]).map((entry) => entrySentence(entry, Date.now()));
      expect(line).toContain(`NodeFault (${names}`);
      const warnings = (await operator.backend.listEvents(ref)).filter((each) => each.type === "Warning");
      expect(warnings.some((each) => each.message.includes(names))).toBe(true);
      // Only that pod: the other stayed where it was, not recreated.
      const after = await podsByGroup();
      expect(after.get(0)).toMatchObject({ node: kept?.node, createdAt: kept?.createdAt });
      expect(replaced.node).not.toBe(kept?.node);
      // From the fault (the signal's first sight on the node) to the replacement pod created and back.
      const faultAt = event.faultAt.getTime();
      const figures = [
        `fault → detected ${event.detectedAt.getTime() - faultAt} ms`,
        `→ pod replaced on ${replaced.node} ${replaced.createdAt - faultAt} ms`,
        `→ recovered ${(event.recoveredAt?.getTime() ?? Number.NaN) - faultAt} ms`,
        `(CLI call → all 8 ranks running ${backMs} ms)`,
      ];
      console.log(`[node-signals] --source ${source}: ${figures.join(", ")}`);
    },
    120_000,
  );
});
