import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLocalBackend, type LocalBackend } from "@/server/cluster/local/backend";
import { createDb, type Db } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { seedIfEmpty } from "@/server/db/seed";
import { MAX_LOG_RULES } from "@/server/domain/job-spec/run-policy.schema";
import { submitResponseSchema } from "@/server/domain/operator-api/contract";
import { createLogger } from "@/server/log";
import { localTokenAuth } from "@/server/operator/api/authorize";
import { handleRequest } from "@/server/operator/api/routes";
import { SHADOW_ANNOTATION, shadowRules } from "@/server/operator/shadow/marks";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { createOperatorDeps } from "@/server/operator/wiring";
import { childEnv } from "@/test/child-env";
import { createTestDatabase } from "@/test/database";

/**
 * Issue 34, item 3: a job's `rebound.dev/shadow-log-monitoring` annotation with rules over the limits was
 * accepted with `warnings: []` and the whole shadow set dropped. Now submit (the operator's API, and the
 * CLI that calls it) answers a warning naming each dropped rule and the limit it broke, and the operator
 * keeps watching the rules within them. No controller runs here: nothing starts pods.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
const TOKEN = "shadow-warnings-test-token";
const NAMESPACE = "hyperpod-ns-llm-research";
const ANNOTATION_PATH = `metadata.annotations["${SHADOW_ANNOTATION}"]`;
let database: { url: string; drop: () => Promise<void> };
let db: Db;
let backend: LocalBackend;
let server: Server;
let base = "";
let dataDir = "";

const rule = (name: string, logPattern: string) => ({ name, logPattern });
/** Within every limit, and one more than MAX_LOG_RULES of them: the last is dropped. */
const within = Array.from({ length: MAX_LOG_RULES + 1 }, (_, i) => rule(`Watch${i}`, `.*step ${i}`));
const SHADOW = [
  rule("StepHang", "(.*a){100}x"),
  { name: "NoPattern" },
  rule("BadSyntax", "(unclosed"),
  ...within,
];

const shadowedJob = (name: string) =>
  demoJobYaml({ name, nodes: 1, ranks: 1, annotations: { [SHADOW_ANNOTATION]: JSON.stringify(SHADOW) } });

beforeAll(async () => {
  database = await createTestDatabase("adv_shadow_warnings");
  await migrate(database.url);
  db = createDb(database.url);
  await seedIfEmpty(db);
  dataDir = await mkdtemp(path.join(tmpdir(), "rebound-shadow-warnings-"));
  backend = await createLocalBackend({
    db,
    dataDir,
    repoRoot: ROOT,
    nodeCount: 1,
    gpusPerNode: 1,
    nodeRebootMs: 0,
  });
  const deps = createOperatorDeps({ backend, db, log: createLogger({ test: "shadow-warnings" }) });
  const auth = localTokenAuth({ token: TOKEN, tokenFile: "(test)" });
  server = createServer((req, res) => void handleRequest({ req, res, deps, auth, healthy: () => true }));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  if (server) await new Promise((resolve) => server.close(resolve));
  await backend?.stop();
  await db?.$disconnect();
  await database?.drop();
  await rm(dataDir, { recursive: true, force: true });
}, 60_000);

describe("submitting a job whose shadow rules break the limits", () => {
  it("answers a warning naming each dropped rule and its limit, and keeps the rest watched", async () => {
    const response = await fetch(`${base}/api/v1/jobs`, {
      method: "POST",
      body: shadowedJob("adv-shadow-warned"),
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/yaml" },
    });
    expect(response.status).toBe(201);
    const body = submitResponseSchema.parse(await response.json());
    const shadowWarnings = body.warnings.filter((warning) => warning.path === ANNOTATION_PATH);
    expect(shadowWarnings.map((warning) => warning.message)).toEqual([
      "shadow rule StepHang ([0]) dropped, the operator will not watch it: logPattern repeats (.*a) 100 times; at most 64",
      expect.stringMatching(
        /^shadow rule NoPattern \(\[1\]\) dropped, the operator will not watch it: logPattern: /,
      ),
      expect.stringMatching(
        /^shadow rule BadSyntax \(\[2\]\) dropped, the operator will not watch it: logPattern: invalid or unsupported pattern/,
      ),
      `shadow rule Watch${MAX_LOG_RULES} ([${MAX_LOG_RULES + 3}]) dropped, the operator will not watch it: past the first ${MAX_LOG_RULES} rules: at most ${MAX_LOG_RULES} log monitoring rules per job (each runs on every output line)`,
    ]);
    expect(shadowWarnings.every((warning) => typeof warning.line === "number")).toBe(true);

    const job = await backend.getJob({ namespace: NAMESPACE, name: "adv-shadow-warned" });
    if (!job) throw new Error("the job was not stored");
    expect(shadowRules(job)?.rules.map((kept) => kept.name)).toEqual(
      within.slice(0, MAX_LOG_RULES).map((kept) => kept.name),
    );
  });

  it("prints the same warnings from `rebound submit`", async () => {
    const file = path.join(dataDir, "shadowed.yaml");
    await writeFile(file, shadowedJob("adv-shadow-cli"));
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        [path.join(ROOT, "bin/rebound.mjs"), "submit", file, "--operator", base, "--token", TOKEN],
        { cwd: ROOT, env: childEnv({ REBOUND_DATA_DIR: dataDir }) },
      );
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
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`submitted ${NAMESPACE}/adv-shadow-cli`);
    const lines = result.stderr.split("\n").filter((line) => line.includes("shadow rule"));
    expect(lines.map((line) => line.replace(/ \(line \d+\)/, ""))).toEqual([
      `warning: ${ANNOTATION_PATH}: shadow rule StepHang ([0]) dropped, the operator will not watch it: logPattern repeats (.*a) 100 times; at most 64`,
      expect.stringContaining("shadow rule NoPattern ([1]) dropped"),
      expect.stringContaining("shadow rule BadSyntax ([2]) dropped"),
      expect.stringContaining(`shadow rule Watch${MAX_LOG_RULES} ([${MAX_LOG_RULES + 3}]) dropped`),
    ]);
  });
});
