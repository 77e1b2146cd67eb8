import { rm } from "node:fs/promises";
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { JobRef } from "@/server/cluster/types";
import { seedIfEmpty } from "@/server/db/seed";
import {
  allRunning,
  attachShadow,
  crashToRunning,
  floodJobYaml,
  probeHealth,
  quantile,
  serveOperatorApi,
  writeFloodScript,
} from "@/server/operator/shadow/testing";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import type { Lifecycle } from "../k8s/environment";
import { type BenchOperator, openLocalEnvironment } from "../lib/local-environment";

/**
 * The shadow half of `npm run bench:abuse` (issue 34 item 3): a real in-process operator with the local back
 * end runs an LLM job (2 pods × 2 ranks); one of its ranks is killed `crashes` times and each time the
 * time until every rank runs again is taken, with the operator's /healthz probed every 50 ms meanwhile.
 * Three phases: the LLM job alone; beside a Vision job whose rank prints a 100,000-character line every
 * 20 ms (teed into its pod's output), without a shadow; and with the worst shadow rule set the limits
 * accept (server/operator/shadow/testing.ts) attached to that job through the operator's API, as the
 * console's shadow mode does. Targets: /healthz p99 < 50 ms with the shadow, and crash → all ranks running
 * p99 within 20 % of the same load without the shadow (the ratio to the LLM job alone is printed too).
 * Before issue 34 the shadow rules ran on the operator's event loop: /healthz stalled for 12-35 s.
 */
export type ShadowAbuseOptions = { life: Lifecycle; log: (line: string) => void; crashes?: number };

const LLM: JobRef = { namespace: "hyperpod-ns-llm-research", name: "abuse-llm" };
const FLOOD: JobRef = { namespace: "hyperpod-ns-vision", name: "abuse-shadow-flood" };
const LLM_RANKS = 4;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Phase = {
  loopDelayMax: number;
  healthP50: number;
  healthP99: number;
  healthMax: number;
  failed: number;
  recoveries: number[];
};

/** The LLM job's ranks crashed in turn, `crashes` times: each crash's time to every rank running again. */
async function crashAll(operator: BenchOperator, crashes: number): Promise<number[]> {
  const recoveries: number[] = [];
  for (let n = 0; n < crashes; n += 1) {
    recoveries.push(await crashToRunning(operator, { ref: LLM, rank: n % LLM_RANKS, ranks: LLM_RANKS }));
    // The restarted rank back to its steps before the next crash.
    await pause(1000);
  }
  return recoveries;
}

/** `crashes` crashes, /healthz probed throughout. */
async function phase(operator: BenchOperator, base: string, crashes: number): Promise<Phase> {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const probe = probeHealth(base);
  const recoveries = await crashAll(operator, crashes).catch(async (error: unknown) => {
    await probe.stop();
    throw error;
  });
  const { latencies, failed } = await probe.stop();
  delay.disable();
  return {
    loopDelayMax: delay.max / 1e6,
    healthP50: quantile(latencies, 0.5),
    healthP99: quantile(latencies, 0.99),
    healthMax: Math.max(...latencies),
    failed,
    recoveries,
  };
}

const summary = (name: string, p: Phase) =>
  `shadow: ${name}: /healthz p50 ${p.healthP50.toFixed(1)} ms, p99 ${p.healthP99.toFixed(1)} ms, max ${p.healthMax.toFixed(1)} ms (${p.failed} failed); crash → all ranks running p50 ${quantile(p.recoveries, 0.5).toFixed(0)} ms, p90 ${quantile(p.recoveries, 0.9).toFixed(0)} ms, p99 ${quantile(p.recoveries, 0.99).toFixed(0)} ms over ${p.recoveries.length} (${p.recoveries.map((ms) => ms.toFixed(0)).join(", ")}); the operator's event-loop delay max ${p.loopDelayMax.toFixed(0)} ms`;

export async function runShadowAbuse(opts: ShadowAbuseOptions): Promise<Record<string, number>> {
  const { life, log } = opts;
  const crashes = opts.crashes ?? 20;
  const env = await openLocalEnvironment({
    name: "rebound-bench-abuse-shadow-",
    nodes: 3,
    gpusPerNode: 2,
    pollMs: 100,
    seed: async (db) => {
      await seedIfEmpty(db);
    },
  });
  life.defer("shadow: the operator, its pods and PostgreSQL", () => env.close());
  const { operator } = env;
  const api = await serveOperatorApi(operator);
  life.defer("shadow: the operator's API", () => api.close());
  const flood = await writeFloodScript();
  life.defer("shadow: the flood script", () => rm(flood.dir, { recursive: true, force: true }));

  // Every crash a restart in place: no escalation to a full job restart within the run (HyperPod counts them).
  await operator.submit(
    demoJobYaml({ name: LLM.name, nodes: 2, ranks: 2, hangSeconds: 30, restartsBeforeFullRestart: 1000 }),
  );
  await operator.waitForJob(LLM, "the LLM job running", () => allRunning(operator, LLM, LLM_RANKS), 120_000);
  await pause(2000);
  const without = await phase(operator, api.base, crashes);
  log(summary("without the shadow job", without));

  await operator.submit(
    floodJobYaml({ name: FLOOD.name, namespace: FLOOD.namespace, script: flood.script, shadow: false }),
  );
  await operator.waitForJob(FLOOD, "the flood job running", () => allRunning(operator, FLOOD, 1), 120_000);
  await pause(3000);
  const floodOnly = await phase(operator, api.base, crashes);
  log(summary("with the flood job (100,000-character lines), no shadow yet", floodOnly));

  await attachShadow(api.base, operator.token, FLOOD);
  // The shadow's watch starts at the job's next reconcile; its passes then read the lines.
  await pause(3000);
  const withShadow = await phase(operator, api.base, crashes);
  log(summary("the flood job with the worst shadow set attached", withShadow));

  const events = await operator.backend.listEvents(FLOOD);
  const count = (reason: string) => events.filter((event) => event.reason === reason).length;
  const verdicts = await operator.db.shadowVerdict.count({ where: { jobName: FLOOD.name } });
  log(
    `shadow: the shadow meanwhile: ${verdicts} verdict(s), events ShadowWouldRestart ${count("ShadowWouldRestart")}, ShadowRulesOverBudget ${count("ShadowRulesOverBudget")}, ShadowRulesBehind ${count("ShadowRulesBehind")}`,
  );
  const p99 = (p: Phase) => quantile(p.recoveries, 0.99);
  const ratio = p99(withShadow) / p99(floodOnly);
  log(
    `shadow: /healthz p99 with the shadow ${withShadow.healthP99.toFixed(1)} ms (target < 50); crash → all ranks running p99 with/without the shadow ${ratio.toFixed(2)} (target <= 1.20); with the shadow job/without any flood ${(p99(withShadow) / p99(without)).toFixed(2)}`,
  );
  return {
    healthP99MsIdle: without.healthP99,
    healthP99MsFloodOnly: floodOnly.healthP99,
    healthP99MsWith: withShadow.healthP99,
    healthMaxMsWith: withShadow.healthMax,
    healthFailedWith: withShadow.failed,
    recoveryP99MsIdle: p99(without),
    recoveryP50MsFloodOnly: quantile(floodOnly.recoveries, 0.5),
    recoveryP99MsFloodOnly: p99(floodOnly),
    recoveryP50MsWith: quantile(withShadow.recoveries, 0.5),
    recoveryP99MsWith: p99(withShadow),
    recoveryP99Ratio: ratio,
    shadowVerdicts: verdicts,
    shadowOverBudgetEvents: count("ShadowRulesOverBudget"),
  };
}
