import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { RULE_LINE_BUDGET_MS } from "@/server/agent/rule-queue";
import { cleanupAgents, startAgent } from "@/server/agent/testing/agent-harness";
import type { JobRef } from "@/server/cluster/types";
import { createRankLogMonitor } from "@/server/domain/log-rules/rank-monitor";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";
import { rankLogs } from "@/server/services/jobs/queries";
import { LONG_LINE_CHARS, WORST_ACCEPTED_RULES } from "@/test/adversarial/rule-cost-rules";

/**
 * The rules half of `npm run bench:abuse` (issue 16, item 6). For the costliest rule set the validator
 * accepts (test/adversarial/rule-cost-rules.ts: 32 rules, each a logPattern and a stopPattern of 64 counted
 * copies) over 100,000-character lines, prints:
 * - the agent's cost of one line through all rules unbudgeted (what the agent would spend without its
 *   per-line budget) and the budget it keeps to;
 * - a real agent's /status latency, p50 and p99, while a worker prints such lines every 20 ms;
 * - the console's logs view (rankLogs: 200 such lines, patterns in the worker) p99, with a health probe's
 *   p99 measured meanwhile. The probe is a trivial HTTP handler on the same event loop as the logs-view
 *   code (this process), not the built console's /api/healthz: starting the whole console is left to the
 *   body-limit half. Targets: logs view < 200 ms, health < 50 ms.
 */

export type RuleAbuseOptions = { seconds?: number; log?: (line: string) => void };

const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};

function unbudgetedLineMs(): number {
  const created = createRankLogMonitor({ rules: WORST_ACCEPTED_RULES, now: Date.now });
  if (!created.ok) throw new Error(created.reason);
  created.monitor.resume();
  const line = "a".repeat(LONG_LINE_CHARS);
  created.monitor.onLine(line);
  const t0 = performance.now();
  created.monitor.onLine(line);
  return performance.now() - t0;
}

const FLOOD_SCRIPT = `
const line = "a".repeat(${LONG_LINE_CHARS});
const until = Date.now() + Number(process.argv[2]);
const tick = () => {
  if (Date.now() > until) return setTimeout(() => process.exit(0), 600_000);
  process.stdout.write(line + "\\n");
  setTimeout(tick, 20);
};
tick();
`;

async function agentStatusLatency(seconds: number): Promise<number[]> {
  const dir = await mkdtemp(path.join(tmpdir(), "rebound-bench-rules-"));
  try {
    const script = path.join(dir, "flood.mjs");
    await writeFile(script, FLOOD_SCRIPT);
    const agent = await startAgent({
      args: [
        "--server-port=0",
        "--server-host=127.0.0.1",
        "--nproc-per-node=1",
        `--log-dir=${dir}/logs`,
        script,
        String((seconds + 10) * 1000),
      ],
    });
    const body = {
      rank: 0,
      nnodes: 1,
      faultCount: 0,
      master_addr: "127.0.0.1",
      master_port: 29500,
      log_monitoring_configuration: WORST_ACCEPTED_RULES,
    };
    await agent.request({ method: "POST", path: "/start", body });
    await agent.waitFor((s) => (s.ranks?.[0]?.last_line ?? "").startsWith("aaa"));
    const latencies: number[] = [];
    const until = Date.now() + seconds * 1000;
    while (Date.now() < until) {
      const t0 = performance.now();
      await agent.status();
      latencies.push(performance.now() - t0);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return latencies;
  } finally {
    await cleanupAgents();
    await rm(dir, { recursive: true, force: true });
  }
}

async function logsViewWithHealth(seconds: number): Promise<{ logs: number[]; health: number[] }> {
  const ref: JobRef = { namespace: "bench", name: "rule-abuse" };
  const text = Array.from({ length: 200 }, () => `[default0]:${"a".repeat(LONG_LINE_CHARS)}`).join("\n");
  const source = { logs: async () => text } as unknown as ClusterSource;
  let round = 0;
  const server = createServer((req, res) => {
    if (req.url === "/healthz") return void res.end("ok");
    // A new rule set each call, so nothing comes from the worker's cache: the worst case every time.
    round += 1;
    const rules = WORST_ACCEPTED_RULES.map((rule) => ({ ...rule, name: `${rule.name}-${round}` }));
    void rankLogs(source, ref, { pod: "p", localRank: 0, tail: 200, rules }).then((lines) =>
      res.end(JSON.stringify(lines.length)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const timed = async (route: string, into: number[]) => {
    const t0 = performance.now();
    await (await fetch(`${base}${route}`)).text();
    into.push(performance.now() - t0);
  };
  await timed("/logs", []); // starts the worker
  const logs: number[] = [];
  const health: number[] = [];
  const until = Date.now() + seconds * 1000;
  const logsLoop = (async () => {
    while (Date.now() < until) await timed("/logs", logs);
  })();
  const healthLoop = (async () => {
    while (Date.now() < until) {
      await timed("/healthz", health);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  await Promise.all([logsLoop, healthLoop]);
  await new Promise((resolve) => server.close(resolve));
  return { logs, health };
}

export async function runRuleAbuse(opts: RuleAbuseOptions = {}): Promise<Record<string, number>> {
  const seconds = opts.seconds ?? 10;
  const log = opts.log ?? ((line: string) => console.log(line));
  const lineMs = unbudgetedLineMs();
  log(
    `rules: agent, one 100,000-char line through 32 worst accepted rules: ${lineMs.toFixed(0)} ms unbudgeted; the agent spends at most ${RULE_LINE_BUDGET_MS} ms + one rule on it`,
  );
  const status = await agentStatusLatency(seconds);
  log(
    `rules: agent /status while such lines flow: p50 ${quantile(status, 0.5).toFixed(1)} ms, p99 ${quantile(status, 0.99).toFixed(1)} ms (${status.length} calls)`,
  );
  const { logs, health } = await logsViewWithHealth(seconds);
  log(
    `rules: console logs view (200 such lines): p99 ${quantile(logs, 0.99).toFixed(1)} ms (target < 200); health probe meanwhile p99 ${quantile(health, 0.99).toFixed(1)} ms (target < 50)`,
  );
  return {
    agentLineMsUnbudgeted: lineMs,
    agentLineBudgetMs: RULE_LINE_BUDGET_MS,
    agentStatusP50Ms: quantile(status, 0.5),
    agentStatusP99Ms: quantile(status, 0.99),
    logsViewP99Ms: quantile(logs, 0.99),
    healthP99Ms: quantile(health, 0.99),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runRuleAbuse();
  process.exit(0);
}
