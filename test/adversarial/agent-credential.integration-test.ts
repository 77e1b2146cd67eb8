import { execFileSync, spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobRef } from "@/server/cluster/types";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { type LocalOperator, startLocalOperator } from "@/server/operator/testing/local-operator";
import { listRestartEvents } from "@/server/store/restart-events/queries";
import { createSeededTestDatabase } from "@/test/database";

/**
 * Issue 34, item 2: on the one-machine back end a Vision pod found the LLM job's agent ports with `ps` and
 * sent `/stop` with no credential; half the LLM ranks were killed. Each of our agents now asks every call
 * for its pod's credential, which the operator gave it in its environment (server/cluster/
 * agent-credential.ts). Here another process finds the LLM agents' ports the same way (`ps`, where no
 * credential shows), then sends each `/stop`, `/start`, `/update`, `/shutdown` and `/status` without a
 * credential, with a guessed one and with the Vision pod's own: every call is answered 401, and nothing
 * changed (the same agent and rank processes, the job Running with every rank, no restart recorded), while
 * the operator, which holds the credentials, still drives and reads the agents.
 */
const llm: JobRef = { namespace: "hyperpod-ns-llm-research", name: "adv-cred-llm" };
const vision: JobRef = { namespace: "hyperpod-ns-vision", name: "adv-cred-vision" };
const RANKS = 2;

let database: { url: string; drop: () => Promise<void> };
let operator: LocalOperator;

const rankPids = (ref: JobRef) =>
  (operator.live(ref)?.pods ?? []).flatMap((pod) => pod.ranks.map((rank) => rank.pid)).sort();
const agentUrls = (ref: JobRef) =>
  operator.backend.pods
    .list(ref)
    .sort((a, b) => a.index - b.index)
    .map((pod) => pod.agentUrl ?? "");
const agentPids = (ref: JobRef) =>
  operator.backend.pods.list(ref).map((pod) => operator.backend.pods.pidOf(ref.namespace, pod.name));

beforeAll(async () => {
  database = await createSeededTestDatabase("it_adv_agent_credential");
  operator = await startLocalOperator({ databaseUrl: database.url, nodes: 3, gpusPerNode: RANKS });
  await operator.submit(demoJobYaml({ name: llm.name, nodes: 2, ranks: RANKS, hangSeconds: 30 }));
  await operator.submit(
    demoJobYaml({ name: vision.name, nodes: 1, ranks: 1, hangSeconds: 30, namespace: vision.namespace }),
  );
  await operator.waitFor(
    "both jobs running, every rank with its process",
    () =>
      rankPids(llm).filter((pid) => pid !== null).length === 2 * RANKS &&
      operator.live(vision)?.ranksRunning === 1,
    90_000,
  );
}, 150_000);

afterAll(async () => {
  await operator?.stop();
  await database?.drop();
}, 60_000);

/** Ports of the agents whose command line names the job's pods, as any user of the machine reads them. */
function portsFromPs(ref: JobRef): { ports: number[]; commandLines: string } {
  const commandLines = execFileSync("ps", ["-eo", "args"], { encoding: "utf8" });
  const ports = commandLines
    .split("\n")
    .filter((line) => line.includes(`${ref.name}-workers-`) && line.includes("--server-port"))
    .map((line) => Number(/--server-port (\d+)/.exec(line)?.[1]));
  return { ports: ports.sort(), commandLines };
}

type Answer = { call: string; auth: string; status: number };

/** Another process (a pod of another team) sends every command to each port; returns what it was answered. */
function attack(ports: number[], credentials: Record<string, string>): Promise<Answer[]> {
  const start = { rank: 0, nnodes: 1, faultCount: 0, master_addr: "127.0.0.1", master_port: 1 };
  const code = `
    const ports = ${JSON.stringify(ports)};
    const auths = ${JSON.stringify(credentials)};
    const calls = [
      ["POST", "/stop", {}], ["POST", "/start", ${JSON.stringify(start)}], ["POST", "/update", ${JSON.stringify(start)}],
      ["POST", "/shutdown", undefined], ["GET", "/status", undefined], ["GET", "/rebound/v1/watch", undefined],
    ];
    (async () => {
      const answers = [];
      for (const port of ports) for (const [auth, header] of Object.entries(auths)) for (const [method, path, body] of calls) {
        const headers = header ? { authorization: header } : {};
        if (body !== undefined) headers["content-type"] = "application/json";
        const response = await fetch("http://127.0.0.1:" + port + path, {
          method, headers, body: body === undefined ? undefined : JSON.stringify(body),
        });
        await response.body?.cancel();
        answers.push({ call: method + " " + path, auth, status: response.status });
      }
      process.stdout.write(JSON.stringify(answers));
    })().catch((error) => { process.stderr.write(String(error)); process.exit(1); });
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on("exit", (code) =>
      code === 0
        ? resolve(JSON.parse(out) as Answer[])
        : reject(new Error(`attacker exited ${code}: ${err}`)),
    );
  });
}

describe("another team's process calls the LLM job's agents without their credential", () => {
  it("finds their ports with ps, but no credential there", () => {
    const urls = agentUrls(llm);
    const { ports, commandLines } = portsFromPs(llm);
    expect(ports).toEqual(urls.map((url) => Number(new URL(url).port)).sort());
    for (const url of urls) {
      const credential = operator.backend.agentCredential?.(url);
      expect(credential).toBeTruthy();
      expect(commandLines).not.toContain(credential as string);
    }
  });

  it("is answered 401 on every command, and nothing changes", async () => {
    const { ports } = portsFromPs(llm);
    const visionUrl = agentUrls(vision)[0] ?? "";
    const visionCredential = operator.backend.agentCredential?.(visionUrl) as string;
    const pidsBefore = rankPids(llm);
    const agentsBefore = agentPids(llm);
    const answers = await attack(ports, {
      none: "",
      guessed: "Bearer 0000000000000000000000000000000000000000000",
      "vision pod's own": `Bearer ${visionCredential}`,
    });
    expect(answers).toHaveLength(ports.length * 3 * 6);
    expect(answers.filter((answer) => answer.status !== 401)).toEqual([]);
    // Long enough for a stop the agents had obeyed to show: the operator reads each agent's state as it changes.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(rankPids(llm)).toEqual(pidsBefore);
    expect(agentPids(llm)).toEqual(agentsBefore);
    expect(operator.live(llm)).toMatchObject({ phase: "Running", ranksRunning: 2 * RANKS });
    expect(await listRestartEvents(operator.db, { namespace: llm.namespace, jobName: llm.name })).toEqual([]);
    const job = await operator.backend.getJob(llm);
    expect(job?.status.restartCount ?? 0).toBe(0);
    console.info(
      `agent credential: ${answers.length} calls from another process to ${ports.length} LLM agents, all 401; ${pidsBefore.length} rank pids unchanged`,
    );
  }, 60_000);

  it("while the operator, which holds each pod's credential, still reads and drives them", async () => {
    const [url] = agentUrls(llm);
    const status = await operator.deps.agents.status(url ?? "");
    expect(status).toMatchObject({ ok: true, value: { status: "running" } });
    expect(operator.live(llm)?.pods.every((pod) => pod.agentState === "running")).toBe(true);
  });
});
