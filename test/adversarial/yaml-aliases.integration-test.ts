import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { createDb, type Db } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { parseJobYaml } from "@/server/domain/job-spec/parse-job";
import { MAX_BODY_BYTES } from "@/server/domain/limits";
import { localTokenAuth } from "@/server/operator/api/authorize";
import { handleRequest } from "@/server/operator/api/routes";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { type LocalOperator, startLocalOperator } from "@/server/operator/testing/local-operator";
import { createTestDatabase } from "@/test/database";

/**
 * Issue 16, item 7: a 1,005,622-byte job YAML with 99 aliases was accepted and read back as 100,303,116
 * bytes (under yaml's alias-count guard, which counts aliases, not bytes). Now a manifest whose aliases
 * expand it past the 1 MiB body limit is refused with 400 naming the aliases and the limit, and nothing is
 * stored. The same document is built here to the byte and sent to a real local operator's API.
 */
const TOKEN = "yaml-aliases-test-token";
const NAME = "adv-yaml-aliases";
const NAMESPACE = "hyperpod-ns-llm-research";
const ISSUE_BYTES = 1_005_622;
let database: { url: string; drop: () => Promise<void> };
let db: Db;
let operator: LocalOperator;
let server: Server;
let base = "";

/**
 * The demo job with one anchored annotation repeated by `aliases` more annotations: `bytes` long in all, or
 * with an anchored value of `anchor` bytes.
 */
function aliased(opts: { name: string; aliases: number; bytes?: number; anchor?: number }): string {
  const job = demoJobYaml({ name: opts.name, nodes: 1, ranks: 1 });
  const refs = Array.from({ length: opts.aliases }, (_, index) => `    copy${index}: *big\n`).join("");
  const frame = (value: string) =>
    job.replace(
      `  namespace: ${NAMESPACE}\n`,
      `  namespace: ${NAMESPACE}\n  annotations:\n    big: &big ${value}\n${refs}`,
    );
  const fill = opts.anchor ?? (opts.bytes ?? 0) - Buffer.byteLength(frame(""));
  return frame("x".repeat(fill));
}

/** Its size written out as JSON, as it would be stored and read back. */
const expandedBytes = (yaml: string) => Buffer.byteLength(JSON.stringify(parse(yaml, { maxAliasCount: -1 })));

async function submit(yaml: string) {
  const response = await fetch(`${base}/api/v1/jobs`, {
    method: "POST",
    body: yaml,
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/yaml" },
  });
  return { status: response.status, body: (await response.json()) as { message: string } };
}

const stored = async () => ({
  jobs: await db.localJob.count(),
  audit: await db.auditLog.count({ where: { action: "operator.job.submit" } }),
});

beforeAll(async () => {
  database = await createTestDatabase("adv_yaml_aliases");
  await migrate(database.url);
  db = createDb(database.url);
  operator = await startLocalOperator({ databaseUrl: database.url, nodes: 1, gpusPerNode: 1 });
  const auth = localTokenAuth({ token: TOKEN, tokenFile: "(test)" });
  server = createServer(
    (req, res) => void handleRequest({ req, res, deps: operator.deps, healthy: () => true, auth }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  if (server) await new Promise((resolve) => server.close(resolve));
  await operator?.stop();
  await db?.$disconnect();
  await database?.drop();
}, 60_000);

describe("a job YAML whose aliases expand it", () => {
  it("is the issue's document: 1,005,622 bytes, 99 aliases, about 100 MB once expanded", () => {
    const yaml = aliased({ name: NAME, aliases: 99, bytes: ISSUE_BYTES });
    expect(Buffer.byteLength(yaml)).toBe(ISSUE_BYTES);
    expect(yaml.match(/\*big/g)).toHaveLength(99);
    expect(expandedBytes(yaml)).toBeGreaterThan(100_000_000);
  });

  const justOver = aliased({ name: NAME, aliases: 99, anchor: Math.ceil(MAX_BODY_BYTES / 100) });

  it("and one just over 1 MiB once expanded", () => {
    expect(expandedBytes(justOver)).toBeGreaterThan(MAX_BODY_BYTES);
    expect(expandedBytes(justOver)).toBeLessThan(MAX_BODY_BYTES + 10_000);
  });

  it.each([
    ["the issue's 1,005,622 bytes with 99 aliases", aliased({ name: NAME, aliases: 99, bytes: ISSUE_BYTES })],
    ["just over 1 MiB once expanded", justOver],
  ])("is refused (%s) with 400 naming aliases and the limit, and nothing is stored", async (_what, yaml) => {
    const before = await stored();
    const answer = await submit(yaml);
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(/aliases \(\*name\) expand it to more than 1048576 bytes \(1 MiB/);
    expect(await stored()).toEqual(before);
    const job = await fetch(`${base}/api/v1/jobs/${NAMESPACE}/${NAME}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(job.status).toBe(404);
  });

  it("is accepted when it stays under 1 MiB expanded (aliases are not refused as such)", async () => {
    const yaml = aliased({ name: `${NAME}-small`, aliases: 99, anchor: 10_000 });
    expect(expandedBytes(yaml)).toBeLessThan(MAX_BODY_BYTES);
    expect(parseJobYaml(yaml).ok).toBe(true);
    const answer = await submit(yaml);
    expect(answer.status).toBe(201);
  });
});
