import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PodIdentity } from "@/server/cluster/local/pod-identity";
import { isAlive } from "@/server/cluster/local/process-tree";
import type { JobRef } from "@/server/cluster/types";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { type LocalOperator, startLocalOperator } from "@/server/operator/testing/local-operator";
import { createSeededTestDatabase } from "@/test/database";

/**
 * Issue 34, item 2: all local pods ran as one user, so a Vision pod overwrote the LLM job's
 * `checkpoint.json` ({"step":1100} → {"step":999999}), read its per-rank `stdout.log` and could signal
 * processes of another Rebound instance. Under a root operator each pod now runs as a user of its own and
 * its job's group (server/cluster/local/pod-identity.ts). Here, as the Vision pod's uid and gid (a process
 * spawned with them, as the pod's own are), the attack is tried again: overwrite and read the LLM job's
 * checkpoint, list its checkpoints and job directory (the fault file), read its rank's stdout.log and its
 * agent's environment (the agent credential), and SIGKILL its agents and ranks. Every step is refused, and
 * nothing changed: the checkpoint's bytes, every LLM agent and rank alive under the same pids. The LLM
 * job's two pods, two users of one group, both read and overwrite the shared checkpoint (in place and by
 * rename), as a replacement pod resuming from its predecessor's checkpoint must.
 */
const llm: JobRef = { namespace: "hyperpod-ns-llm-research", name: "adv-user-llm" };
const vision: JobRef = { namespace: "hyperpod-ns-vision", name: "adv-user-vision" };
const RANKS = 2;
const CHECKPOINT = '{"step":1100}\n';
const root = process.getuid?.() === 0;

let database: { url: string; drop: () => Promise<void> };
let operator: LocalOperator;

/** The demo job, saving no checkpoint of its own while the test runs (the test's bytes stay as written). */
const job = (ref: JobRef, nodes: number, ranks: number) =>
  demoJobYaml({ name: ref.name, namespace: ref.namespace, nodes, ranks, hangSeconds: 60 }).replace(
    '"--step-ms", "100"]',
    '"--step-ms", "100", "--checkpoint-every", "1000000"]',
  );

const rankPids = (ref: JobRef) =>
  (operator.live(ref)?.pods ?? []).flatMap((pod) => pod.ranks.map((rank) => rank.pid));
const podNames = (ref: JobRef) =>
  operator.backend.pods
    .list(ref)
    .sort((a, b) => a.index - b.index)
    .map((pod) => pod.name);
const identity = (ref: JobRef, pod: string) =>
  operator.backend.pods.runAsOf(ref.namespace, pod) as PodIdentity;
const agentPid = (ref: JobRef, pod: string) => operator.backend.pods.pidOf(ref.namespace, pod) as number;
const jobDir = (ref: JobRef) => path.join(operator.dataDir, "local", "jobs", ref.namespace, ref.name);
const checkpointFile = (ref: JobRef) => path.join(jobDir(ref), "checkpoints", "checkpoint.json");

/** A file under the pod's log dir (found as root, the operator). */
function findFile(dir: string, name: string): string | null {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isFile() && entry.name === name) return full;
    const found = entry.isDirectory() ? findFile(full, name) : null;
    if (found) return found;
  }
  return null;
}

/** Runs `code` (Node.js) as the pod's processes run: its uid, its job's gid, umask 007; returns its JSON. */
function runAs(who: PodIdentity, code: string): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    const child = spawn("/bin/sh", ["-c", 'umask 007 && exec "$@"', "pod", process.execPath, "-e", code], {
      uid: who.uid,
      gid: who.gid,
      cwd: "/",
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`exited ${code}: ${err}`)),
    );
  });
}

/** Each named step's outcome: "ok", or the error code it failed with. */
const attempts = (steps: Record<string, string>) => `
  const fs = require("node:fs");
  const result = {};
  const steps = { ${Object.entries(steps)
    .map(([name, body]) => `${JSON.stringify(name)}: () => { ${body} }`)
    .join(", ")} };
  for (const [name, step] of Object.entries(steps)) {
    try { const value = step(); result[name] = value === undefined ? "ok" : String(value); }
    catch (error) { result[name] = error.code ?? String(error); }
  }
  process.stdout.write(JSON.stringify(result));
`;

/** Signals every pid, answering each distinct outcome ("ok" or the error code). */
const signalEach = (pids: (number | null)[], signal: string) => `
  const seen = new Set();
  for (const pid of ${JSON.stringify(pids)}) {
    try { process.kill(pid, ${JSON.stringify(signal)}); seen.add("ok"); } catch (error) { seen.add(error.code); }
  }
  return [...seen].join(",");
`;

function status(pid: number, field: string): string {
  return new RegExp(`^${field}:\\s+(\\S+)`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? "";
}

beforeAll(async () => {
  database = await createSeededTestDatabase("it_adv_pod_user_isolation");
  operator = await startLocalOperator({ databaseUrl: database.url, nodes: 3, gpusPerNode: RANKS });
  await operator.submit(job(llm, 2, RANKS));
  await operator.submit(job(vision, 1, 1));
  await operator.waitFor(
    "both jobs running, every rank with its process",
    () =>
      rankPids(llm).filter((pid) => pid !== null).length === 2 * RANKS &&
      rankPids(vision).filter((pid) => pid !== null).length === 1,
    90_000,
  );
}, 150_000);

afterAll(async () => {
  await operator?.stop();
  await database?.drop();
}, 60_000);

if (!root) {
  describe("local pods under an operator that is not root", () => {
    it("run as the operator's own user: it has no other to give them (README says what that leaves open)", () => {
      for (const ref of [llm, vision]) {
        for (const pod of podNames(ref)) {
          expect(operator.backend.pods.runAsOf(ref.namespace, pod)).toBeNull();
          expect(status(agentPid(ref, pod), "Uid")).toBe(String(process.getuid?.()));
        }
      }
    });
  });
}

describe.runIf(root)("local pods under a root operator", () => {
  it("run as users of their own, one group per job, never root", () => {
    const [llm0, llm1] = podNames(llm).map((pod) => identity(llm, pod));
    const [vision0] = podNames(vision).map((pod) => identity(vision, pod));
    const ids = [llm0, llm1, vision0].map((each) => each?.uid);
    expect(new Set(ids).size).toBe(3);
    expect(ids).not.toContain(0);
    expect(llm0?.gid).toBe(llm1?.gid);
    expect(vision0?.gid).not.toBe(llm0?.gid);
    // The processes themselves: each agent and its ranks run as its pod's user and job's group, umask 007.
    for (const ref of [llm, vision]) {
      for (const pod of operator.live(ref)?.pods ?? []) {
        const who = identity(ref, pod.name);
        const agent = agentPid(ref, pod.name);
        expect([status(agent, "Uid"), status(agent, "Gid"), status(agent, "Umask")]).toEqual([
          String(who.uid),
          String(who.gid),
          "0007",
        ]);
        for (const rank of pod.ranks) expect(status(rank.pid as number, "Uid")).toBe(String(who.uid));
      }
    }
  });

  it("let the same job's two pods share its checkpoints: each reads and overwrites the other's", async () => {
    const [llm0, llm1] = podNames(llm).map((pod) => identity(llm, pod)) as [PodIdentity, PodIdentity];
    const file = checkpointFile(llm);
    const write = await runAs(
      llm0,
      attempts({ write: `fs.writeFileSync(${JSON.stringify(file)}, '{"step":1000}\\n')` }),
    );
    const other = await runAs(
      llm1,
      attempts({
        read: `return fs.readFileSync(${JSON.stringify(file)}, "utf8").trim()`,
        inPlace: `fs.writeFileSync(${JSON.stringify(file)}, '{"step":1050}\\n')`,
        renamed: `fs.writeFileSync(${JSON.stringify(`${file}.tmp`)}, ${JSON.stringify(CHECKPOINT)}); fs.renameSync(${JSON.stringify(`${file}.tmp`)}, ${JSON.stringify(file)})`,
      }),
    );
    const back = await runAs(
      llm0,
      attempts({ read: `return fs.readFileSync(${JSON.stringify(file)}, "utf8").trim()` }),
    );
    expect(write).toEqual({ write: "ok" });
    expect(other).toEqual({ read: '{"step":1000}', inPlace: "ok", renamed: "ok" });
    expect(back).toEqual({ read: CHECKPOINT.trim() });
    expect(readFileSync(file, "utf8")).toBe(CHECKPOINT);
  });

  it("refuse another team's pod every step of the attack, and nothing changes", async () => {
    const [visionPod] = podNames(vision);
    const attacker = identity(vision, visionPod as string);
    const [llmPod] = podNames(llm);
    const job = await operator.backend.getJob(llm);
    const logs = path.join(
      operator.dataDir,
      "local",
      "pods",
      llm.namespace,
      llm.name,
      job?.uid ?? "",
      llmPod as string,
      "logs",
    );
    const stdoutLog = findFile(logs, "stdout.log") as string;
    expect(stdoutLog).toBeTruthy();
    const file = checkpointFile(llm);
    const checkpointBefore = readFileSync(file);
    const ranksBefore = rankPids(llm);
    const agentsBefore = podNames(llm).map((pod) => agentPid(llm, pod));
    const victims = [...ranksBefore, ...agentsBefore];
    const outcome = await runAs(
      attacker,
      attempts({
        overwriteCheckpoint: `fs.writeFileSync(${JSON.stringify(file)}, '{"step":999999}\\n')`,
        readCheckpoint: `fs.readFileSync(${JSON.stringify(file)})`,
        listCheckpoints: `fs.readdirSync(${JSON.stringify(path.dirname(file))})`,
        listJobDir: `fs.readdirSync(${JSON.stringify(jobDir(llm))})`,
        plantInJobDir: `fs.writeFileSync(${JSON.stringify(path.join(jobDir(llm), "fault.json"))}, '{"kind":"crash","rank":null}')`,
        readStdoutLog: `fs.readFileSync(${JSON.stringify(stdoutLog)})`,
        listLogs: `fs.readdirSync(${JSON.stringify(logs)})`,
        readAgentEnvironment: `fs.readFileSync("/proc/${agentsBefore[0]}/environ")`,
        killRanks: signalEach(victims, "SIGKILL"),
        stopRanks: signalEach(victims, "SIGSTOP"),
      }),
    );
    expect(outcome).toEqual({
      overwriteCheckpoint: "EACCES",
      readCheckpoint: "EACCES",
      listCheckpoints: "EACCES",
      listJobDir: "EACCES",
      plantInJobDir: "EACCES",
      readStdoutLog: "EACCES",
      listLogs: "EACCES",
      readAgentEnvironment: "EACCES",
      killRanks: "EPERM",
      stopRanks: "EPERM",
    });
    // Long enough for a kill that had landed to show: the operator reads each agent's state as it changes.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(readFileSync(file)).toEqual(checkpointBefore);
    expect(existsSync(path.join(jobDir(llm), "fault.json"))).toBe(false);
    for (const pid of victims) expect(isAlive(pid as number)).toBe(true);
    expect(rankPids(llm)).toEqual(ranksBefore);
    expect(operator.live(llm)).toMatchObject({ phase: "Running", ranksRunning: 2 * RANKS });
    console.info(
      `pod user isolation: ${Object.keys(outcome).length} attack steps as ${attacker.user} (uid ${attacker.uid}) all refused; ${victims.length} LLM pids alive, checkpoint unchanged`,
    );
  });

  it("give a deleted job's pods' users back: processes ended, directories root's again", async () => {
    const [visionPod] = podNames(vision);
    const who = identity(vision, visionPod as string);
    const job = await operator.backend.getJob(vision);
    const logs = path.join(
      operator.dataDir,
      "local",
      "pods",
      vision.namespace,
      vision.name,
      job?.uid ?? "",
      visionPod as string,
      "logs",
    );
    // Something of the pod's in /tmp, as a job would leave: swept with its user.
    const leftover = `/tmp/rebound-isolation-leftover-${who.uid}`;
    await runAs(who, attempts({ write: `fs.writeFileSync(${JSON.stringify(leftover)}, "x")` }));
    expect(existsSync(leftover)).toBe(true);
    await operator.backend.requestDeletion(vision);
    await operator.waitFor(
      "the Vision job deleted",
      async () => (await operator.backend.getJob(vision)) === null,
      30_000,
    );
    expect(statSync(logs)).toMatchObject({ uid: 0, gid: 0 });
    expect(statSync(logs).mode & 0o777).toBe(0o700);
    await operator.waitFor("its leftover in /tmp swept", () => !existsSync(leftover), 10_000);
  });
});
