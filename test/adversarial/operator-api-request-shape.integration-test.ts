import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { localTokenAuth } from "@/server/operator/api/authorize";
import { handleRequest } from "@/server/operator/api/routes";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { type LocalOperator, startLocalOperator } from "@/server/operator/testing/local-operator";
import { createOperatorSource } from "@/server/services/jobs/gateway/operator-gateway";
import { childEnv } from "@/test/child-env";
import { createTestDatabase } from "@/test/database";

/**
 * Issue 16, item 9: a `text/plain` POST with `Origin: https://evil.example` and a foreign Host was accepted:
 * what a web page (a cross-site "simple" request needs no preflight) or DNS rebinding (a name the page owns,
 * pointed at 127.0.0.1) needs. Every attack here carries the valid token, as a leaked or guessed one would;
 * each is refused naming the header, and the job, the job list and the audit log stay as they were. The
 * console's own calls (its operator gateway) and the CLI's still work.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
const TOKEN = "request-shape-test-token";
let database: { url: string; drop: () => Promise<void> };
let db: Db;
let operator: LocalOperator;
let server: Server;
let port = 0;
const ref = { namespace: "hyperpod-ns-llm-research", name: "adv-shape" };
const jobPath = `/api/v1/jobs/${ref.namespace}/${ref.name}`;
const SUSPEND = JSON.stringify({ action: "suspend", by: "attacker@evil.example" });

/** A raw HTTP call (fetch cannot set Host), always with the valid token. */
function raw(opts: { method: string; path: string; body?: string; headers?: Record<string, string> }) {
  return new Promise<{ status: number; message: string }>((resolve, reject) => {
    const call = request(
      {
        host: "127.0.0.1",
        port,
        method: opts.method,
        path: opts.path,
        headers: { authorization: `Bearer ${TOKEN}`, host: `127.0.0.1:${port}`, ...opts.headers },
      },
      (response) => {
        let text = "";
        response.on("data", (chunk: Buffer) => {
          text += chunk.toString();
        });
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            message: (JSON.parse(text) as { message: string }).message,
          }),
        );
      },
    );
    call.on("error", reject);
    call.end(opts.body);
  });
}

/** What the attacks must leave alone: the job's spec, the job list, the audit log. */
async function snapshot() {
  const job = await operator.backend.getJob(ref);
  return {
    suspend: job?.object.spec.runPolicy?.suspend ?? null,
    generation: job?.generation ?? null,
    jobs: (await operator.backend.listJobs()).map((each) => `${each.ref.namespace}/${each.ref.name}`).sort(),
    audit: await db.auditLog.count({ where: { action: { startsWith: "operator." } } }),
  };
}

beforeAll(async () => {
  database = await createTestDatabase("adv_request_shape");
  await migrate(database.url);
  db = createDb(database.url);
  operator = await startLocalOperator({ databaseUrl: database.url, nodes: 1, gpusPerNode: 1 });
  const auth = localTokenAuth({ token: TOKEN, tokenFile: "(test)" });
  server = createServer(
    (req, res) => void handleRequest({ req, res, deps: operator.deps, healthy: () => true, auth }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  await operator.submit(demoJobYaml({ name: ref.name, nodes: 1, ranks: 1, gpusPerPod: 1 }));
}, 120_000);

afterAll(async () => {
  if (server) await new Promise((resolve) => server.close(resolve));
  await operator?.stop();
  await db?.$disconnect();
  await database?.drop();
}, 60_000);

describe("the operator API's request shape", () => {
  it("refuses the issue's request: text/plain, Origin https://evil.example, a foreign Host", async () => {
    const before = await snapshot();
    const answer = await raw({
      method: "POST",
      path: `${jobPath}/actions`,
      body: SUSPEND,
      headers: { "content-type": "text/plain", origin: "https://evil.example", host: `evil.example:${port}` },
    });
    expect(answer.status).toBe(421);
    expect(answer.message).toMatch(
      /^host: expected 127\.0\.0\.1:\d+, localhost:\d+, \[::1\]:\d+ .* got evil\.example:/,
    );
    expect(await snapshot()).toEqual(before);
  });

  it("refuses a text/plain write with the valid token: 415 naming content-type, nothing changed", async () => {
    const before = await snapshot();
    const writes = [
      { path: `${jobPath}/actions`, body: SUSPEND },
      { path: `${jobPath}/faults`, body: JSON.stringify({ kind: "crash", rank: 0 }) },
      { path: "/api/v1/jobs", body: demoJobYaml({ name: "adv-shape-planted", nodes: 1, ranks: 1 }) },
    ];
    for (const write of writes) {
      const answer = await raw({ method: "POST", ...write, headers: { "content-type": "text/plain" } });
      expect(answer.status).toBe(415);
      expect(answer.message).toMatch(/^content-type: expected application\/(json|yaml).* got text\/plain$/);
    }
    expect(await snapshot()).toEqual(before);
  });

  it.each(["evil.example", "rebound.evil.example:PORT", "10.0.0.1:PORT", "127.0.0.1"])(
    "refuses a DNS-rebinding Host %s with a JSON body and the token: 421, nothing changed",
    async (host) => {
      const before = await snapshot();
      const answer = await raw({
        method: "POST",
        path: `${jobPath}/actions`,
        body: SUSPEND,
        headers: { "content-type": "application/json", host: host.replace("PORT", String(port)) },
      });
      expect(answer.status).toBe(421);
      expect(answer.message).toMatch(/^host: /);
      expect(await snapshot()).toEqual(before);
    },
  );

  it("refuses a foreign Origin with a JSON body and the token: 403 naming origin, nothing changed", async () => {
    const before = await snapshot();
    for (const origin of ["https://evil.example", "null", "http://localhost:3000"]) {
      const answer = await raw({
        method: "POST",
        path: `${jobPath}/actions`,
        body: SUSPEND,
        headers: { "content-type": "application/json", origin },
      });
      expect(answer.status).toBe(403);
      expect(answer.message).toMatch(/^origin: expected none or http:\/\/127\.0\.0\.1:/);
    }
    // Reads too: a page must not read the job list through a rebound name or from its origin.
    expect(
      (await raw({ method: "GET", path: "/api/v1/jobs", headers: { origin: "https://evil.example" } }))
        .status,
    ).toBe(403);
    expect(await snapshot()).toEqual(before);
  });

  it("still serves the console's own calls (its operator gateway)", async () => {
    const source = createOperatorSource({
      baseUrl: `http://127.0.0.1:${port}`,
      mode: "local",
      token: () => TOKEN,
    });
    // Listed once the operator has reconciled it (its pods made): the list is the operator's live view.
    const listed = await operator.waitFor("the job in the gateway's list", async () =>
      (await source.jobs()).some((job) => job.name === ref.name),
    );
    expect(listed).toBe(true);
    await source.act(ref, { action: "suspend", by: "engineer@rebound.local" });
    expect((await snapshot()).suspend).toBe(true);
    await source.act(ref, { action: "resume", by: "engineer@rebound.local" });
    expect((await snapshot()).suspend).toBe(false);
    expect(typeof (await source.logs(ref, `${ref.name}-workers-0`, 10))).toBe("string");
  });

  it("still serves the CLI: submit (application/yaml), jobs and delete", async () => {
    const file = path.join(operator.dataDir, "cli-job.yaml");
    writeFileSync(file, demoJobYaml({ name: "adv-shape-cli", nodes: 1, ranks: 1 }));
    const submitted = await cli(["submit", file]);
    expect(submitted.code, submitted.stderr).toBe(0);
    expect(submitted.stdout).toContain(`submitted ${ref.namespace}/adv-shape-cli`);
    const listed = await cli(["jobs"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain("adv-shape-cli");
    const deleted = await cli(["delete", "adv-shape-cli", "-n", ref.namespace]);
    expect(deleted.code, deleted.stderr).toBe(0);
  }, 60_000);
});

function cli(args: string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, "bin/rebound.mjs"), ...args], {
      cwd: ROOT,
      env: childEnv({ REBOUND_OPERATOR_TOKEN: TOKEN, REBOUND_OPERATOR_URL: `http://127.0.0.1:${port}` }),
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
