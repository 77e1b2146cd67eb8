import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createDb, type Db } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { seedIfEmpty } from "@/server/db/seed";
import { type LocalOperator, startLocalOperator } from "@/server/operator/testing/local-operator";
import { createTestDatabase } from "@/test/database";

/**
 * Issue 16, item 1: a Vision job that printed its environment showed DATABASE_URL, password included, in
 * the console's logs view; with it a Vision engineer made themselves cluster admin in the database. Local
 * pods also ran as whoever ran `npm start` (root). Here the operator's environment holds DATABASE_URL and a
 * REBOUND_* secret, a Vision job's worker prints its whole environment, its uid and groups, and tries to
 * read the operator's token; the pod's log (read as the console reads it, through the back end's podLogs)
 * shows none of the operator's variables, NNODES as HyperPod's operator injects it, and, under root, a
 * worker that is not root and is refused the token.
 */
const SECRET = "pod-secrets-test-3f9c1b";
const VISION = "vision@rebound.local";
let database: { url: string; drop: () => Promise<void> };
let db: Db;
let operator: LocalOperator;
const ref = { namespace: "hyperpod-ns-vision", name: "adv-print-env" };
const pod = `${ref.name}-workers-0`;

type Report = {
  uid: number;
  agentUid: number;
  groups: number[];
  token: string;
  writes: { checkpoints: string; home: string };
  env: Record<string, string>;
};

/** The worker: one line with what it can see, then it keeps running (as a training job would). */
function workerCode(tokenFile: string): string {
  return [
    'const fs = require("node:fs");',
    'let token = "READ";',
    `try { fs.readFileSync(${JSON.stringify(tokenFile)}); } catch (error) { token = error.code; }`,
    "const tryWrite = (dir) => { try { fs.writeFileSync(dir + '/probe', 'x'); return 'ok'; } catch (error) { return error.code; } };",
    "const writes = { checkpoints: tryWrite(process.env.REBOUND_CHECKPOINT_DIR), home: tryWrite(process.env.HOME) };",
    'const agentUid = Number(/^Uid:\\s+(\\d+)/m.exec(fs.readFileSync("/proc/" + process.ppid + "/status", "utf8"))[1]);',
    "const report = { uid: process.getuid(), agentUid, groups: process.getgroups(), token, writes, env: process.env };",
    'console.log("POD-REPORT " + JSON.stringify(report));',
    "setInterval(() => {}, 1000);",
  ].join(" ");
}

function jobYaml(tokenFile: string): string {
  const command = [
    "npx",
    "rebound-agent",
    "--nproc-per-node",
    "1",
    "--tee",
    "3",
    process.execPath,
    "-e",
    workerCode(tokenFile),
  ];
  return `apiVersion: sagemaker.amazonaws.com/v1
kind: HyperPodPyTorchJob
metadata:
  name: ${ref.name}
  namespace: ${ref.namespace}
spec:
  nprocPerNode: "1"
  replicaSpecs:
    - name: workers
      replicas: 1
      template:
        spec:
          containers:
            - name: trainer
              image: rebound/demo:latest
              command: ${JSON.stringify(command)}
              env:
                - { name: FROM_YAML, value: "kept" }
              resources:
                limits:
                  nvidia.com/gpu: 1
`;
}

const visionRoles = () =>
  db.membership.findMany({
    where: { user: { email: VISION } },
    select: { role: true, team: { select: { name: true } } },
    orderBy: { teamId: "asc" },
  });

async function podReport(): Promise<Report> {
  const line = await operator.waitFor(
    "the worker's report in the pod's log",
    async () => {
      const log = await operator.backend.podLogs(ref, pod, 500);
      return log.split("\n").find((each) => each.includes("POD-REPORT {"));
    },
    60_000,
  );
  return JSON.parse(line.slice(line.indexOf("POD-REPORT ") + "POD-REPORT ".length)) as Report;
}

let report: Report;
let rolesBefore: Awaited<ReturnType<typeof visionRoles>>;

beforeAll(async () => {
  database = await createTestDatabase("adv_pod_secrets");
  await migrate(database.url);
  db = createDb(database.url);
  await seedIfEmpty(db);
  rolesBefore = await visionRoles();
  // What `npm start` and the operator hold: the database, with its password, and Rebound's own settings.
  vi.stubEnv("DATABASE_URL", database.url);
  vi.stubEnv("REBOUND_ADMIN_PASSWORD", SECRET);
  vi.stubEnv("OPERATOR_TOKEN", SECRET);
  operator = await startLocalOperator({ databaseUrl: database.url, nodes: 1, gpusPerNode: 1 });
  await operator.submit(jobYaml(path.join(operator.dataDir, "operator-token")));
  report = await podReport();
}, 120_000);

afterAll(async () => {
  vi.unstubAllEnvs();
  await operator?.stop();
  await db?.$disconnect();
  await database?.drop();
}, 60_000);

describe("a job that prints its environment", () => {
  it("sees none of the operator's variables: no DATABASE_URL, no REBOUND_* or OPERATOR_* secret", () => {
    const names = Object.keys(report.env);
    expect(names).not.toContain("DATABASE_URL");
    expect(names.filter((name) => /^(REBOUND_ADMIN|OPERATOR_)/.test(name))).toEqual([]);
    const text = JSON.stringify(report.env);
    expect(text).not.toContain(SECRET);
    const url = new URL(database.url);
    expect(text).not.toContain(`${url.username}:${url.password}@`);
    expect(text).not.toContain(url.host);
  });

  it("sees what HyperPod's operator injects and what its YAML gives it", () => {
    expect(report.env.NNODES).toBe("1");
    expect(report.env.FROM_YAML).toBe("kept");
    expect(report.env.WORLD_SIZE).toBe("1");
  });

  it("runs unprivileged under a root operator and cannot read the operator's token", () => {
    if (process.getuid?.() === 0) {
      expect(report.uid).not.toBe(0);
      expect(report.agentUid).toBe(report.uid);
      expect(report.groups).not.toContain(0);
      expect(report.token).toBe("EACCES");
    } else {
      // An operator that is not root has nothing to drop: its pods run as it does.
      expect([report.uid, report.agentUid]).toEqual([process.getuid?.(), process.getuid?.()]);
    }
  });

  it("can still write what a pod writes: its job's checkpoints and its home", () => {
    expect(report.writes).toEqual({ checkpoints: "ok", home: "ok" });
  });

  it("leaves vision@'s role in the database as it was (the attack's first step fails)", async () => {
    expect(rolesBefore).toEqual([{ role: "engineer", team: { name: "vision" } }]);
    expect(await visionRoles()).toEqual(rolesBefore);
  });
});
