import { chmod, mkdtemp, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { JobRef } from "@/server/cluster/types";
import { MAX_LOG_RULES } from "@/server/domain/job-spec/run-policy.schema";
import type { LogMonitoringRule } from "@/server/domain/log-rules/log-rule.schema";
import { injectFault } from "@/server/operator/api/faults";
import { handleRequest } from "@/server/operator/api/routes";
import { steppingRanks } from "@/server/operator/testing/helpers";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import type { LocalOperator } from "@/server/operator/testing/local-operator";
import { SHADOW_ANNOTATION } from "./marks";

/**
 * Issue 34's shadow attack, for the tests and `npm run bench:abuse -- --part shadow`: the worst shadow rule
 * set the limits accept (MAX_LOG_RULES rules of the issue's `(.*a){64}x`, each with a stopPattern of 63
 * copies, both tried on every line and neither matching a line of "a": about a second per line
 * unbudgeted), on ranks that print 100,000-character lines of "a". Past the start cut-off the rules find
 * the rank HANGING, so the shadow still has verdicts to record.
 */
export const WORST_SHADOW_RULES: LogMonitoringRule[] = Array.from({ length: MAX_LOG_RULES }, (_, i) => ({
  name: `Costly${i}`,
  logPattern: "(.*a){64}x",
  stopPattern: "(.*a){63}x",
  expectedStartCutOffInSeconds: 5,
}));

/** The line length. */
export const LONG_LINE_CHARS = 100_000;

/**
 * Prints a 100,000-character line of "a" every `everyMs` until killed, each led by its number: the shadow
 * tells new lines from those it read by their text (output.ts linesAfter), and the agent's tee keeps a
 * line's first MAX_LINE_CHARS + 1 characters only.
 */
const FLOOD_SCRIPT = `
const body = "a".repeat(${LONG_LINE_CHARS});
const everyMs = Number(process.argv[2] ?? 20);
let n = 0;
setInterval(() => {
  n += 1;
  process.stdout.write(n + " " + body.slice(String(n).length + 1) + "\\n");
}, everyMs);
`;

/** The flood trainer in a directory of its own, readable by every pod's user; its path. */
export async function writeFloodScript(): Promise<{ dir: string; script: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), "rebound-shadow-flood-"));
  await chmod(dir, 0o755);
  const script = path.join(dir, "flood.mjs");
  await writeFile(script, FLOOD_SCRIPT, { mode: 0o644 });
  return { dir, script };
}

/**
 * A one-pod job whose ranks run the flood script, teed into the pod's output (`--tee 3`: the shadow reads
 * the ranks' lines there), with the worst shadow rule set in its annotation.
 */
export function floodJobYaml(opts: {
  name: string;
  script: string;
  namespace?: string;
  ranks?: number;
  everyMs?: number;
  /** false: the same job without a shadow (attachShadow adds it later, as the console's shadow mode does). */
  shadow?: boolean;
}): string {
  const yaml = demoJobYaml({
    name: opts.name,
    namespace: opts.namespace,
    nodes: 1,
    ranks: opts.ranks ?? 1,
    tee: true,
    annotations: opts.shadow === false ? {} : { [SHADOW_ANNOTATION]: JSON.stringify(WORST_SHADOW_RULES) },
  });
  const args = /args: \[.*\]/;
  if (!args.test(yaml)) throw new Error("the demo job has no args line to replace");
  return yaml.replace(args, `args: ${JSON.stringify([opts.script, String(opts.everyMs ?? 20)])}`);
}

/** Attaches the worst shadow rule set to a running job through the operator's API (PUT shadow-policy). */
export async function attachShadow(base: string, token: string, ref: JobRef): Promise<void> {
  const response = await fetch(`${base}/api/v1/jobs/${ref.namespace}/${ref.name}/shadow-policy`, {
    method: "PUT",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ rules: WORST_SHADOW_RULES, policy: null, by: "attacker@rebound.local" }),
  });
  if (!response.ok) throw new Error(`shadow-policy answered ${response.status}: ${await response.text()}`);
}

/** The operator's /healthz, as the test's in-process operator serves it (main.ts's handler and routes). */
export async function serveOperatorApi(
  operator: LocalOperator,
): Promise<{ base: string; close(): Promise<void> }> {
  const server = createServer(
    (req, res) =>
      void handleRequest({ req, res, deps: operator.deps, auth: operator.auth, healthy: () => true }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Times GET /healthz every `everyMs` (one at a time) until stopped: the latencies in ms, and the probes that
 * failed (no answer, or not 200), each counted with the time it took.
 */
export function probeHealth(
  base: string,
  everyMs = 50,
): { stop(): Promise<{ latencies: number[]; failed: number }> } {
  const latencies: number[] = [];
  let failed = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const t0 = performance.now();
      const ok = await fetch(`${base}/healthz`).then(
        async (response) => {
          await response.text();
          return response.ok;
        },
        () => false,
      );
      latencies.push(performance.now() - t0);
      if (!ok) failed += 1;
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return { latencies, failed };
    },
  };
}

const rankPids = (operator: LocalOperator, ref: JobRef) =>
  (operator.live(ref)?.pods ?? []).flatMap((pod) => pod.ranks.map((rank) => [rank.rank, rank.pid] as const));

/** Every one of the job's `ranks` ranks has a process. */
export const allRunning = (operator: LocalOperator, ref: JobRef, ranks: number): boolean =>
  rankPids(operator, ref).filter(([, pid]) => pid !== null).length === ranks &&
  operator.live(ref)?.ranksRunning === ranks;

/**
 * Every rank runs and has printed a step since its process started. A crash before that is a restart
 * without progress, which waits out the crash-loop back-off (10 s; server/domain/recovery/crash-loop.ts).
 */
const allStepping = (operator: LocalOperator, ref: JobRef, ranks: number): boolean =>
  allRunning(operator, ref, ranks) && steppingRanks(operator.live(ref)) === ranks;

/**
 * Kills one rank of the job (SIGKILL, the `crash` fault) and times until every rank runs again, the killed
 * one with a new process; ms. It waits for every rank to step first, so each crash follows progress and
 * is restarted at once, however slowly a loaded machine's trainers reach their first step.
 */
export async function crashToRunning(
  operator: LocalOperator,
  input: { ref: JobRef; rank: number; ranks: number; timeoutMs?: number },
): Promise<number> {
  const { ref, rank, ranks } = input;
  await operator.waitFor(
    "every rank running and stepping before the crash",
    () => allStepping(operator, ref, ranks),
    60_000,
  );
  const before = new Map(rankPids(operator, ref)).get(rank);
  injectFault({ backend: operator.backend, live: operator.deps.live, ref, input: { kind: "crash", rank } });
  const t0 = performance.now();
  const deadline = t0 + (input.timeoutMs ?? 60_000);
  for (;;) {
    const pid = new Map(rankPids(operator, ref)).get(rank);
    if (pid !== undefined && pid !== null && pid !== before && allRunning(operator, ref, ranks))
      return performance.now() - t0;
    if (performance.now() > deadline)
      throw new Error(`rank ${rank} of ${ref.name} was not running again in time`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export const quantile = (values: readonly number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};
