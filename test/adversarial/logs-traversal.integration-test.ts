import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "@/server/db/migrate";
import { localTokenAuth } from "@/server/operator/api/authorize";
import { handleRequest } from "@/server/operator/api/routes";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { type LocalOperator, startLocalOperator } from "@/server/operator/testing/local-operator";
import { createTestDatabase } from "@/test/database";

/**
 * Issue 16, item 2: the operator's logs route checked only that `pod` starts with the job's name, so
 * `pod=<job>-x/../../<other-namespace>/<other-job>-w-0` read another team's log, and enough `../` read a
 * root-only file anywhere named agent.log. Now `pod` must be a pod name and one of the job's pods (400
 * naming the field otherwise), and the local back end reads only a log whose real path lies in that pod's
 * own directory. Two teams' jobs run on a real local operator; the secrets are never in an answer.
 */
const TOKEN = "logs-traversal-test-token";
const LLM_SECRET = "LLM-RESEARCH-ONLY";
const ROOT_SECRET = "ROOT-ONLY-AGENT-LOG";
let database: { url: string; drop: () => Promise<void> };
let operator: LocalOperator;
let server: Server;
let base = "";
let outside = "";
const llm = { namespace: "hyperpod-ns-llm-research", name: "adv-logs-llm" };
const vision = { namespace: "hyperpod-ns-vision", name: "adv-logs-vision" };
/** A pod's agent.log wherever the local back end keeps it (found, so the test holds whatever the layout). */
function agentLog(ref: { namespace: string }, pod: string): string {
  const dir = path.join(operator.dataDir, "local", "pods", ref.namespace);
  const found = readdirSync(dir, { recursive: true, encoding: "utf8" }).find(
    (file) => file === path.join(pod, "agent.log") || file.endsWith(`/${pod}/agent.log`),
  );
  if (!found) throw new Error(`no agent.log for ${pod} under ${dir}`);
  return path.join(dir, found);
}

beforeAll(async () => {
  database = await createTestDatabase("adv_logs_traversal");
  await migrate(database.url);
  operator = await startLocalOperator({ databaseUrl: database.url, nodes: 2, gpusPerNode: 1 });
  const auth = localTokenAuth({ token: TOKEN, tokenFile: "(test)" });
  server = createServer(
    (req, res) => void handleRequest({ req, res, deps: operator.deps, healthy: () => true, auth }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // A root-only file named agent.log outside the operator's data dir.
  outside = mkdtempSync(path.join(tmpdir(), "adv-root-only-"));
  writeFileSync(path.join(outside, "agent.log"), `${ROOT_SECRET}\n`, { mode: 0o600 });
  chmodSync(outside, 0o700);
  await operator.submit(demoJobYaml({ name: llm.name, nodes: 1, ranks: 1, gpusPerPod: 1 }));
  await operator.submit(
    demoJobYaml({ name: vision.name, nodes: 1, ranks: 1, gpusPerPod: 1, namespace: vision.namespace }),
  );
  await operator.waitFor(
    "both jobs running",
    () => operator.live(llm)?.ranksRunning === 1 && operator.live(vision)?.ranksRunning === 1,
    60_000,
  );
  // The LLM Research pod's log holds something only its team may read.
  writeFileSync(agentLog(llm, `${llm.name}-workers-0`), `${LLM_SECRET}\n`, {
    flag: "a",
  });
}, 120_000);

afterAll(async () => {
  if (server) await new Promise((resolve) => server.close(resolve));
  await operator?.stop();
  await database?.drop();
  if (outside) rmSync(outside, { recursive: true, force: true });
}, 60_000);

/** Vision's logs route, asked for `pod` exactly as given (raw in the query, or encoded as the console does). */
async function visionLogs(pod: string, encode: boolean) {
  const query = encode ? encodeURIComponent(pod) : pod;
  const response = await fetch(
    `${base}/api/v1/jobs/${vision.namespace}/${vision.name}/logs?pod=${query}&tail=50`,
    {
      headers: { authorization: `Bearer ${TOKEN}` },
    },
  );
  return { status: response.status, text: await response.text() };
}

const depth = "../".repeat(20);
const traversals = [
  // The string, and the same aimed at the real name of the LLM Research pod.
  `${vision.name}-x/../../${llm.namespace}/${llm.name}-w-0`,
  `${vision.name}-x/../../${llm.namespace}/${llm.name}-workers-0`,
  // Enough ../ to reach the root-only agent.log outside the data dir.
  `${vision.name}-x/${depth}${outside.slice(1)}`,
  `${vision.name}-${depth}${outside.slice(1)}`,
];

describe("the operator's logs route", () => {
  it.each(traversals.flatMap((pod) => [[pod, false] as const, [pod, true] as const]))(
    "refuses pod=%s (encoded: %s) with 400 naming the field, and reads neither file",
    async (pod, encode) => {
      const answer = await visionLogs(pod, encode);
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.text).message).toMatch(/^pod: expected a pod name \(lower-case letters/);
      expect(answer.text).not.toContain(LLM_SECRET);
      expect(answer.text).not.toContain(ROOT_SECRET);
    },
  );

  it("refuses another team's pod by its plain name, naming the job's own pods", async () => {
    const answer = await visionLogs(`${llm.name}-workers-0`, true);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text).message).toBe(
      `pod: ${llm.name}-workers-0 is not one of job ${vision.namespace}/${vision.name}'s pods ` +
        `(expected one of: ${vision.name}-workers-0)`,
    );
    expect(answer.text).not.toContain(LLM_SECRET);
  });

  it("refuses a pod whose agent.log was swapped for a link to another team's log or the root-only file", async () => {
    const own = agentLog(vision, `${vision.name}-workers-0`);
    const kept = readFileSync(own, "utf8");
    for (const target of [agentLog(llm, `${llm.name}-workers-0`), path.join(outside, "agent.log")]) {
      unlinkSync(own);
      symlinkSync(target, own);
      const answer = await visionLogs(`${vision.name}-workers-0`, true);
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.text).message).toMatch(/outside the pod's log directory/);
      expect(answer.text).not.toContain(LLM_SECRET);
      expect(answer.text).not.toContain(ROOT_SECRET);
    }
    unlinkSync(own);
    writeFileSync(own, kept);
  });

  it("still serves each team its own pod's log, and the root-only file is untouched", async () => {
    const own = await visionLogs(`${vision.name}-workers-0`, true);
    expect(own.status).toBe(200);
    expect(JSON.parse(own.text)).toMatchObject({ pod: `${vision.name}-workers-0`, text: expect.any(String) });
    expect(own.text).not.toContain(LLM_SECRET);
    const theirs = await fetch(
      `${base}/api/v1/jobs/${llm.namespace}/${llm.name}/logs?pod=${llm.name}-workers-0`,
      {
        headers: { authorization: `Bearer ${TOKEN}` },
      },
    );
    expect(await theirs.text()).toContain(LLM_SECRET);
    expect(readFileSync(path.join(outside, "agent.log"), "utf8")).toBe(`${ROOT_SECRET}\n`);
  });
});
