import { readFile } from "node:fs/promises";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");
const DEMO_JOB = { namespace: "hyperpod-ns-llm-research", name: "demo-llm" };
const FAULT_KINDS = ["crash", "hang", "nan", "node"] as const;
const jobUrl = (operatorUrl: string) => `${operatorUrl}/api/v1/jobs/${DEMO_JOB.namespace}/${DEMO_JOB.name}`;

/** REBOUND_DEMO (env.ts). */
export type DemoChoice = "auto" | "always" | "never";

/**
 * Whether `npm start` submits the demo job (and injects its faults): `auto` does on a developer's machine
 * and never in production (NODE_ENV=production, which the Docker image sets), where a user's first cluster
 * should not start with someone else's job.
 */
export function demoJobWanted(opts: { choice: DemoChoice; nodeEnv: string }): boolean {
  if (opts.choice !== "auto") return opts.choice === "always";
  return opts.nodeEnv !== "production";
}

/** The operator's URL and its API token (<data dir>/operator-token). */
type Operator = { url: string; token: string };
const bearer = (operator: Operator) => ({ authorization: `Bearer ${operator.token}` });

/** Submits the demo job when the operator has no jobs yet (a fresh data dir). */
async function submitDemoJob(operator: Operator, log: (line: string) => void): Promise<void> {
  const headers = bearer(operator);
  const list = await fetch(`${operator.url}/api/v1/jobs`, { headers });
  if (!list.ok) throw new Error(`the operator refused to list jobs: ${await list.text()}`);
  const jobs = (await list.json()) as { jobs: unknown[] };
  const existing = await fetch(jobUrl(operator.url), { headers });
  if (jobs.jobs.length > 0 || existing.ok) return;
  const yaml = await readFile(path.join(ROOT, "examples/jobs/demo-job.yaml"), "utf8");
  const response = await fetch(`${operator.url}/api/v1/jobs`, {
    method: "POST",
    body: yaml,
    headers: { ...headers, "content-type": "application/yaml" },
  });
  if (!response.ok) throw new Error(`the demo job was refused: ${await response.text()}`);
  log(`submitted the demo job ${DEMO_JOB.namespace}/${DEMO_JOB.name} (examples/jobs/demo-job.yaml)`);
}

/** Every interval, injects a random fault into a random rank of the demo job, so recovery can be watched. */
function startDemoFaults(opts: { operator: Operator; intervalSeconds: number; log: (line: string) => void }) {
  if (opts.intervalSeconds <= 0) return () => undefined;
  const timer = setInterval(async () => {
    const kind = FAULT_KINDS[Math.floor(Math.random() * FAULT_KINDS.length)] ?? "crash";
    const rank = Math.floor(Math.random() * 8);
    const url = `${jobUrl(opts.operator.url)}/faults`;
    const response = await fetch(url, {
      method: "POST",
      body: JSON.stringify({ kind, rank }),
      headers: { ...bearer(opts.operator), "content-type": "application/json" },
    }).catch(() => null);
    if (response?.ok) opts.log(`demo: injected a ${kind} fault into rank ${rank} of ${DEMO_JOB.name}`);
  }, opts.intervalSeconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * `npm start`'s demo on the local back end, per REBOUND_DEMO: the demo job and its faults, or a line saying
 * why there are none. Returns what stops the faults.
 */
export async function startDemo(opts: {
  operator: Operator;
  choice: DemoChoice;
  nodeEnv: string;
  faultIntervalSeconds: number;
  log: (line: string) => void;
}): Promise<() => void> {
  if (!demoJobWanted(opts)) {
    if (opts.choice === "auto") opts.log("no demo job in production (REBOUND_DEMO=always submits it)");
    return () => undefined;
  }
  await submitDemoJob(opts.operator, opts.log);
  return startDemoFaults({
    operator: opts.operator,
    intervalSeconds: opts.faultIntervalSeconds,
    log: opts.log,
  });
}
