import { readdir } from "node:fs/promises";
import path from "node:path";
import { LABEL_JOB } from "@/server/cluster/kubernetes/objects";
import { waitUntil } from "@/server/cluster/kubernetes/testing/kube-env";
import type { JobRef } from "@/server/cluster/types";
import { JOB_PLURAL } from "@/server/domain/job-spec/job-spec.schema";
import { MANUAL_REASON } from "@/server/operator/reconcilers/manual-restart";
import { listRestartEvents, type RestartEventRow } from "@/server/store/restart-events/queries";
import { type AuditEntry, readAuditLog } from "../k8s/audit";
import { type BenchEnvironment, OPERATOR_USER } from "../k8s/environment";
import { injectNodeFault } from "../k8s/faults";
import { scrapeStages, stageDelta } from "./stages";
import { steppingAgain } from "./stepping";

/**
 * The control plane's time per fault, measured on the real operator with stand-in agents (bench:k8s's
 * environment): node faults (HyperPod's health label on a node hosting a pod of the job → the pod replaced,
 * bench/k8s/faults.ts) and rank crashes (a stand-in agent turns FAULTED as a crashed worker's would, with
 * rank 0 of the pod crashed, exit code 1 → the ranks restarted in place), in turns; then full restarts (the
 * operator's restart-job action, the console's: every pod recreated, as a restart from scratch would). Each fault is timed from
 * the bench's write of it to: detected (the operator's restart row), decided (its first write of the job's
 * status, the apiserver's audit clock), replacement pod (node faults: the bench's pod watch), every rank stepping again
 * (the stand-ins' own /status, bench/ettr/stepping.ts), and Running again (the row recovered); with the
 * restart's stages from the operator's metric. Less any crash-loop back-off (the row's waitMs): a policy
 * wait, not the control plane's work (faults an hour apart, as simulated, meet none).
 */
export type FaultKind = "node" | "rank" | "job";

export type ControlPlaneFault = {
  kind: FaultKind;
  pod: string;
  node: string;
  /** The operator's action (POD_REPLACEMENT, PLR, …). */
  action: string;
  /** Epoch ms: the bench's write of the fault. */
  at: number;
  detectedMs: number;
  /** Filled from the audit log at the end; NaN when not found. */
  decidedMs: number;
  /** Node faults: the replacement pod seen; null for a rank crash. */
  replacementMs: number | null;
  /** The last rank stepping again, less the back-off wait. */
  steppingMs: number;
  /** The restart row recovered (the job Running again), less the back-off wait. */
  runningMs: number;
  waitMs: number;
  /** Pods whose agent restarted / answered. */
  restartedPods: number;
  answeredPods: number;
  /** ms by `type/stage` (rebound_operator_restart_stage_seconds). */
  stages: Record<string, number>;
};

const SETTLE_MS = 2000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A running pod of the job, picked at random. */
function pickPod(env: BenchEnvironment, ref: JobRef): { pod: string; node: string } {
  const pods = env.pods.informer
    .list()
    .filter(
      (pod) =>
        pod.metadata?.labels?.[LABEL_JOB] === ref.name &&
        !pod.metadata?.deletionTimestamp &&
        pod.spec?.nodeName,
    );
  const pod = pods[Math.floor(Math.random() * pods.length)];
  if (!pod) throw new Error("no running pod of the job");
  return { pod: pod.metadata?.name ?? "", node: pod.spec?.nodeName ?? "" };
}

/** The restart row `mine` picks among those detected at or after `since`, once settled; fails unless recovered. */
async function settledRow(input: {
  env: BenchEnvironment;
  ref: JobRef;
  what: string;
  mine: (row: RestartEventRow) => boolean;
  since: number;
  timeoutMs: number;
}) {
  const { env, ref, since } = input;
  const row = await waitUntil(
    `the restart for ${input.what} to settle`,
    async () => {
      const rows = await listRestartEvents(env.db, { namespace: ref.namespace, jobName: ref.name });
      const last = rows.filter((r) => input.mine(r) && r.detectedAt.getTime() >= since).at(-1);
      return last && last.outcome !== "pending" ? last : null;
    },
    input.timeoutMs,
    () => explainRestart(input),
  );
  if (row.outcome !== "recovered")
    throw new Error(`the restart for ${input.what} ended ${row.outcome}: ${row.message}`);
  return row;
}

/** On a timeout: the rows since the fault and the operator's view of the job (phase, recovery stage, ranks). */
async function explainRestart(input: { env: BenchEnvironment; ref: JobRef; since: number }): Promise<string> {
  const rows = await listRestartEvents(input.env.db, {
    namespace: input.ref.namespace,
    jobName: input.ref.name,
  });
  const since = rows
    .filter((r) => r.detectedAt.getTime() >= input.since)
    .map((r) => `${r.action} ${r.outcome} "${r.message.slice(0, 120)}"`);
  const response = await fetch(`${input.env.operator.url}/api/v1/jobs`, {
    headers: { authorization: `Bearer ${input.env.operator.token}` },
  }).catch(() => null);
  const body = response?.ok ? ((await response.json()) as { jobs: Record<string, unknown>[] }) : { jobs: [] };
  const job = body.jobs.find((each) => each.name === input.ref.name) ?? {};
  const view = {
    phase: job.phase,
    recovery: job.recovery,
    ranksRunning: job.ranksRunning,
    ranksTotal: job.ranksTotal,
  };
  return `rows since the fault: ${since.join("; ") || "none"}; the operator's view: ${JSON.stringify(view).slice(0, 600)}`;
}

const STEPPING_WAIT_MS = 30_000;

/**
 * Every rank stepping again: read until each of the job's `pods` agents has restarted since the fault and
 * steps (the bench's pod watch can be a moment behind the operator's view); after STEPPING_WAIT_MS, the last
 * read as it is (its restarted/answered counts say it fell short, and the run's log shows them).
 */
async function readStepping(input: { env: BenchEnvironment; ref: JobRef; since: number; pods: number }) {
  const deadline = Date.now() + STEPPING_WAIT_MS;
  const read = () => steppingAgain(input.env, input.ref, input.since);
  let last = await read();
  while (!(last.restarted === input.pods && last.notStepping === 0) && Date.now() < deadline) {
    await sleep(50);
    last = await read();
  }
  return last;
}

function sampleOf(input: {
  kind: FaultKind;
  victim: { pod: string; node: string };
  at: number;
  row: RestartEventRow;
  replacedAt: number | null;
  stepping: Awaited<ReturnType<typeof steppingAgain>>;
  stages: Record<string, number>;
}): ControlPlaneFault {
  const { row, at } = input;
  const waitMs = row.waitMs ?? 0;
  return {
    kind: input.kind,
    ...input.victim,
    action: row.action,
    at,
    detectedMs: row.detectedAt.getTime() - at,
    decidedMs: Number.NaN,
    replacementMs: input.replacedAt === null ? null : input.replacedAt - at,
    steppingMs: input.stepping.at - at - waitMs,
    runningMs: (row.recoveredAt?.getTime() ?? Number.NaN) - at - waitMs,
    waitMs,
    restartedPods: input.stepping.restarted,
    answeredPods: input.stepping.answered,
    stages: input.stages,
  };
}

export async function measureNodeFault(input: {
  env: BenchEnvironment;
  ref: JobRef;
  used: Set<string>;
  timeoutMs: number;
  /** The job's pods (every one restarts in each recovery). */
  pods: number;
}): Promise<ControlPlaneFault> {
  const { env, ref } = input;
  const before = await scrapeStages(env.operator.url);
  const fault = await injectNodeFault(input);
  const stepping = await readStepping({ env, ref, since: fault.patchSentAt, pods: input.pods });
  const stages = stageDelta(before, await scrapeStages(env.operator.url));
  return sampleOf({
    kind: "node",
    victim: { pod: fault.pods.join(","), node: fault.node },
    at: fault.patchSentAt,
    row: fault.event,
    replacedAt: fault.replacedAt,
    stepping,
    stages,
  });
}

export async function measureRankCrash(input: {
  env: BenchEnvironment;
  ref: JobRef;
  timeoutMs: number;
  pods: number;
}): Promise<ControlPlaneFault> {
  const { env, ref } = input;
  const victim = pickPod(env, ref);
  const before = await scrapeStages(env.operator.url);
  const at = Date.now();
  const { ok } = await env.agents.fault({ namespace: ref.namespace, pod: victim.pod });
  if (!ok) throw new Error(`the stand-in agent of ${victim.pod} was not running`);
  const row = await settledRow({
    env,
    ref,
    what: `the crash on ${victim.pod}`,
    mine: (r) => r.pods.includes(victim.pod),
    since: at,
    timeoutMs: input.timeoutMs,
  });
  const stepping = await readStepping({ env, ref, since: at, pods: input.pods });
  const stages = stageDelta(before, await scrapeStages(env.operator.url));
  // Let the operator's bookkeeping of this restart end before the next fault.
  await sleep(SETTLE_MS);
  return sampleOf({ kind: "rank", victim, at, row, replacedAt: null, stepping, stages });
}

/** Asks the operator for a full restart of the job (POST …/actions restart-job, as the console does). */
async function askFullRestart(env: BenchEnvironment, ref: JobRef): Promise<void> {
  const response = await fetch(`${env.operator.url}/api/v1/jobs/${ref.namespace}/${ref.name}/actions`, {
    method: "POST",
    headers: { authorization: `Bearer ${env.operator.token}`, "content-type": "application/json" },
    body: JSON.stringify({ action: "restart-job", by: "bench-ettr" }),
  });
  if (!response.ok) throw new Error(`restart-job: HTTP ${response.status} ${await response.text()}`);
}

export async function measureFullRestart(input: {
  env: BenchEnvironment;
  ref: JobRef;
  timeoutMs: number;
  pods: number;
}): Promise<ControlPlaneFault> {
  const { env, ref } = input;
  const before = await scrapeStages(env.operator.url);
  const at = Date.now();
  await askFullRestart(env, ref);
  const row = await settledRow({
    env,
    ref,
    what: "the full restart",
    mine: (r) => r.faultReason === MANUAL_REASON,
    since: at,
    timeoutMs: input.timeoutMs,
  });
  const stepping = await readStepping({ env, ref, since: at, pods: input.pods });
  const stages = stageDelta(before, await scrapeStages(env.operator.url));
  await sleep(SETTLE_MS);
  const victim = { pod: "(every pod)", node: "(every node)" };
  return sampleOf({ kind: "job", victim, at, row, replacedAt: null, stepping, stages });
}

/**
 * The audit log and the backups the apiserver rotated it into (`audit-<time>.log` beside it): a large job's
 * run writes more than one file holds, and the current file alone lacks the run's earlier faults.
 */
async function readAuditLogs(auditLogPath: string): Promise<{ entries: AuditEntry[]; files: number }> {
  const dir = path.dirname(auditLogPath);
  const stem = path.basename(auditLogPath, ".log");
  const names = (await readdir(dir)).filter((name) => name.startsWith(stem) && name.endsWith(".log"));
  const entries: AuditEntry[] = [];
  // One entry at a time: a full restart of 2,048 pods writes more entries than a spread call takes arguments.
  for (const name of names) for (const entry of await readAuditLog(path.join(dir, name))) entries.push(entry);
  return { entries, files: names.length };
}

const WRITES = new Set(["create", "update", "patch"]);

/**
 * When the operator saved each fault's decision: its first write of the job's status after the fault (a
 * decision is saved in status before any side effect, server/operator/reconcilers/recovery.ts), from the
 * apiserver's audit log. Says how many such writes the log held, to tell a missing figure from a missing log.
 */
export async function addDecisions(input: {
  auditLogPath: string;
  ref: JobRef;
  faults: ControlPlaneFault[];
  log: (line: string) => void;
}): Promise<void> {
  const { entries: audit, files } = await readAuditLogs(input.auditLogPath);
  const statusWrites = audit
    .filter(
      (entry: AuditEntry) =>
        entry.stage === "ResponseComplete" &&
        entry.user === OPERATOR_USER &&
        WRITES.has(entry.verb) &&
        (entry.resource === `${JOB_PLURAL}/status` || entry.resource === JOB_PLURAL) &&
        entry.name === input.ref.name,
    )
    .map((entry) => entry.stageAt)
    .sort((a, b) => a - b);
  input.log(
    `audit log: ${files} files, ${audit.length} entries, ${statusWrites.length} writes of the job's status by the operator`,
  );
  for (const fault of input.faults) {
    const first = statusWrites.find((at) => at >= fault.at);
    const decidedMs = first === undefined ? Number.NaN : first - fault.at;
    // A write after the job ran again is not this fault's decision (the log lacks that part): no figure.
    fault.decidedMs = decidedMs <= fault.runningMs + fault.waitMs ? decidedMs : Number.NaN;
  }
}
