import { round, type Summary, summarize } from "../recovery/stats";
import { type AuditEntry, firstCompleted, requestsOf } from "./audit";
import type { BenchConfig } from "./config";
import { AGENTS_USER, type BenchEnvironment, OPERATOR_USER } from "./environment";
import type { FaultSample } from "./faults";
import { type OperatorCounters, RESTART_STAGES, type RestartStage } from "./operator";
import type { ProcSample } from "./proc";
import type { SilenceFigures } from "./silence";

/** Turns the run into a table (stdout) and the final `BENCH k8s <json>` line (numbers only). */

export type Snapshot = {
  at: number;
  operator: ProcSample | null;
  agents: ProcSample | null;
  cluster: ProcSample | null;
  counters: OperatorCounters | null;
};

export type ReportInput = {
  config: BenchConfig;
  env: BenchEnvironment;
  job: { createdAt: number; runningAt: number };
  /** Operator started, no job yet. */
  idle: Snapshot;
  steadyFrom: Snapshot;
  steadyTo: Snapshot;
  /** The node faults' window starts here (after the silence scenario, if any; else steadyTo). */
  faultsFrom: Snapshot;
  end: Snapshot;
  faults: FaultSample[];
  /** The silence scenario's figures (none frozen without --silent-percent: false silences still count). */
  silence: SilenceFigures;
  audit: AuditEntry[];
  elapsedMs: number;
};

type Row = { key: string; label: string; summary: Summary; target?: { text: string; met: boolean } };

const ADMIN_USER = "rebound-admin";
/** Issue 18's targets at 16,384 ranks (the design's 2 s for a replacement and 400 MB at 2,048 ranks are looser). */
const REPLACEMENT_TARGET_MS = 500;
const DETECTION_TARGET_MS = 200;
const SILENCE_TARGET_MS = 1000;
const QUIET_CPU_TARGET_CORES = 0.5;
/** The design target's operator RSS at 2,048 ranks (256 pods); issue 18's peak for larger jobs. */
const rssTargetMb = (pods: number) => (pods <= 256 ? 400 : 600);

/** The fault's node-label patch, as the apiserver logged it. */
const labelPatch = (input: ReportInput, sample: FaultSample) =>
  firstCompleted(input.audit, {
    user: ADMIN_USER,
    verb: "patch",
    resource: "nodes",
    name: sample.node,
    after: sample.patchSentAt - 5,
  });

/** The replacement pods' creation as the apiserver logged it, from the label patch's answer. */
function apiserverReplacementMs(input: ReportInput, sample: FaultSample): number {
  const patch = labelPatch(input, sample);
  if (!patch) return Number.NaN;
  const creates = sample.pods.map((pod) =>
    firstCompleted(input.audit, {
      user: OPERATOR_USER,
      verb: "create",
      resource: "pods",
      name: pod,
      after: patch.stageAt,
    }),
  );
  if (creates.some((entry) => entry === undefined)) return Number.NaN;
  return Math.max(...creates.map((entry) => entry?.stageAt ?? Number.NaN)) - patch.stageAt;
}

/** One fault's steps, ms after the label patch was answered (audit clock; detection and Running: the operator's). */
function faultSteps(input: ReportInput, sample: FaultSample): number[] {
  const patch = labelPatch(input, sample);
  const t0 = patch?.stageAt ?? sample.patchDoneAt;
  const pod = sample.pods[0] ?? "";
  const call = (verb: string, resource: string, name: string) =>
    (firstCompleted(input.audit, { user: OPERATOR_USER, verb, resource, name, after: t0 })?.stageAt ??
      Number.NaN) - t0;
  const warning = input.audit.find(
    (entry) =>
      entry.stage === "ResponseComplete" &&
      entry.user === OPERATOR_USER &&
      entry.verb === "create" &&
      entry.resource === "events" &&
      entry.stageAt >= t0,
  );
  const created = call("create", "pods", pod);
  const up = replacementUp(input, pod, t0 + created);
  return [
    sample.event.detectedAt.getTime() - t0,
    (warning?.stageAt ?? Number.NaN) - t0,
    call("delete", "pods", pod),
    created,
    up.annotated - t0,
    up.running - t0,
    sample.runningAt - t0,
    backOffMs(sample.decision),
  ];
}

/**
 * When the replacement pod's agent wrote its address (the stand-in's annotation) and when KWOK reported
 * the pod Running (its status write): after these the rest of "Running again" is the operator's.
 */
function replacementUp(input: ReportInput, pod: string, createdAt: number) {
  const after = Number.isFinite(createdAt) ? createdAt : Number.POSITIVE_INFINITY;
  const annotated = firstCompleted(input.audit, {
    user: AGENTS_USER,
    verb: "patch",
    resource: "pods",
    name: pod,
    after,
  });
  const running = input.audit.find(
    (entry) =>
      entry.stage === "ResponseComplete" &&
      entry.resource === "pods/status" &&
      entry.name === pod &&
      entry.user !== OPERATOR_USER &&
      entry.stageAt >= after,
  );
  return { annotated: annotated?.stageAt ?? Number.NaN, running: running?.stageAt ?? Number.NaN };
}

/**
 * The crash-loop back-off the operator put before starting the job again (its decision's Warning event says
 * "back-off N s"): a restart after less than a minute Running without a printed step waits 10 s, 20 s, … (server/
 * domain/recovery/crash-loop.ts). Static stand-in ranks print no steps, so back-to-back faults hit it
 * unless --step-ms gives them steps.
 */
export function backOffMs(message: string): number {
  const match = /back-off (\d+) s/.exec(message);
  return match ? Number(match[1]) * 1000 : 0;
}

function faultTable(input: ReportInput): string[] {
  const heads = [
    "detected",
    "Warning event",
    "old pod deleted",
    "new pod created",
    "agent annotated",
    "pod Running",
    "job Running",
    "back-off",
  ];
  const lines = [
    `${"per fault, ms after the label patch".padEnd(40)}${heads.map((h) => h.padStart(17)).join("")}`,
  ];
  for (const sample of input.faults) {
    const steps = faultSteps(input, sample);
    lines.push(`${`  ${sample.node}`.padEnd(40)}${steps.map((ms) => cell(ms, 17)).join("")}`);
  }
  return lines;
}

const p99Target = (summary: Summary, limitMs: number) => ({
  text: `p99 < ${limitMs}`,
  met: summary.p99 < limitMs,
});

function silenceRows(input: ReportInput): Row[] {
  if (input.silence.silenced === 0) return [];
  return [
    {
      key: "silence_detect",
      label: `agent frozen → "agent silent" logged (${input.silence.detected}/${input.silence.silenced})`,
      summary: input.silence.detect,
      target: p99Target(input.silence.detect, SILENCE_TARGET_MS),
    },
    {
      key: "silence_last_heard",
      label: "  agent frozen → operator last heard from it",
      summary: input.silence.lastHeard,
    },
  ];
}

function rows(input: ReportInput): Row[] {
  const { faults } = input;
  const replacement = summarize(faults.map((s) => s.replacedAt - s.patchSentAt));
  const detected = summarize(faults.map((s) => s.event.detectedAt.getTime() - s.patchSentAt));
  return [
    {
      key: "node_fault_to_replacement_pod",
      label: "node unhealthy → replacement pod (bench's watch)",
      summary: replacement,
      target: p99Target(replacement, REPLACEMENT_TARGET_MS),
    },
    {
      key: "node_fault_to_replacement_pod_apiserver",
      label: "  the same, apiserver's audit clock",
      summary: summarize(faults.map((s) => apiserverReplacementMs(input, s)).filter(Number.isFinite)),
    },
    {
      key: "node_fault_to_detected",
      label: "node unhealthy → fault detected (operator)",
      summary: detected,
      target: p99Target(detected, DETECTION_TARGET_MS),
    },
    {
      key: "node_fault_to_running",
      label: "node unhealthy → job Running again",
      summary: summarize(faults.map((s) => s.runningAt - s.patchSentAt)),
    },
    {
      key: "node_fault_to_running_less_backoff",
      label: "  the same, less the crash-loop back-off",
      summary: summarize(faults.map((s) => s.runningAt - s.patchSentAt - backOffMs(s.decision))),
    },
    ...silenceRows(input),
  ];
}

const cpuPct = (from: ProcSample | null, to: ProcSample | null) =>
  from && to && to.at > from.at ? ((to.cpuS - from.cpuS) / ((to.at - from.at) / 1000)) * 100 : Number.NaN;

function reconcileRate(from: Snapshot, to: Snapshot) {
  const a = from.counters;
  const b = to.counters;
  if (!a || !b || to.at <= from.at) return { perSecond: Number.NaN, meanMs: Number.NaN };
  const count = b.reconciles - a.reconciles;
  return {
    perSecond: count / ((to.at - from.at) / 1000),
    meanMs: count > 0 ? ((b.reconcileSeconds - a.reconcileSeconds) / count) * 1000 : Number.NaN,
  };
}

/**
 * Where the restarts during the faults spent their time, by stage (the operator's stage histogram): mean ms
 * per stage over the restarts that passed through it (NaN for a stage none did).
 */
function stageMeans(from: Snapshot, to: Snapshot): Record<RestartStage, number> {
  return Object.fromEntries(
    RESTART_STAGES.map((stage) => {
      const a = from.counters?.stages[stage];
      const b = to.counters?.stages[stage];
      const count = a && b ? b.count - a.count : 0;
      return [stage, a && b && count > 0 ? ((b.seconds - a.seconds) / count) * 1000 : Number.NaN];
    }),
  ) as Record<RestartStage, number>;
}

/** A counter's rate per second between two snapshots (NaN when the operator does not export it). */
function counterRate(from: Snapshot, to: Snapshot, pick: (counters: OperatorCounters) => number): number {
  if (!from.counters || !to.counters || to.at <= from.at) return Number.NaN;
  return (pick(to.counters) - pick(from.counters)) / ((to.at - from.at) / 1000);
}

/** How the quiet operator hears from its agents, per second, and what a quiet pod costs it. */
function agentTraffic(input: ReportInput, cpuSteadyPct: number) {
  const { steadyFrom: from, steadyTo: to } = input;
  return {
    pollsPerS: counterRate(from, to, (c) => c.polls),
    pushLinesPerS: counterRate(from, to, (c) => c.pushLines),
    heartbeatsPerS: counterRate(from, to, (c) => c.heartbeats),
    // Cores per 1,000 pods: the quiet CPU over the job's pods.
    cpuPer1000Pods: cpuSteadyPct / 100 / (input.config.nodes / 1000),
  };
}

function figures(input: ReportInput) {
  const { steadyFrom, steadyTo, faultsFrom, end, job } = input;
  const operator = end.operator;
  const measured = requestsOf(input.audit, { user: OPERATOR_USER, from: job.createdAt, to: end.at });
  const steady = requestsOf(input.audit, { user: OPERATOR_USER, from: steadyFrom.at, to: steadyTo.at });
  const faultWindow = requestsOf(input.audit, { user: OPERATOR_USER, from: faultsFrom.at, to: end.at });
  const cpuSteadyPct = cpuPct(steadyFrom.operator, steadyTo.operator);
  return {
    rssMb: operator?.rssMb ?? Number.NaN,
    idleRssMb: input.idle.operator?.rssMb ?? Number.NaN,
    quietRssMb: steadyTo.operator?.rssMb ?? Number.NaN,
    // The kernel's high-water mark, or the highest sample if higher (it cannot be).
    peakRssMb: Math.max(operator?.hwmMb ?? Number.NaN, input.env.operator.proc.peakRssMb()),
    cpuS: operator?.cpuS ?? Number.NaN,
    // Operator started with no job → the quiet window's start: the job's creation, placement and first start.
    cpuStartS: (steadyFrom.operator?.cpuS ?? Number.NaN) - (input.idle.operator?.cpuS ?? Number.NaN),
    cpuSteadyPct,
    cpuFaultsPct: cpuPct(faultsFrom.operator, end.operator),
    traffic: agentTraffic(input, cpuSteadyPct),
    silences: end.counters?.silences ?? Number.NaN,
    agentsSteadyPct: cpuPct(steadyFrom.agents, steadyTo.agents),
    clusterSteadyPct: cpuPct(steadyFrom.cluster, steadyTo.cluster),
    steadyReconciles: reconcileRate(steadyFrom, steadyTo),
    faultReconciles: reconcileRate(faultsFrom, end),
    faultStages: stageMeans(faultsFrom, end),
    errors: end.counters ? { reconcile: end.counters.errors, poll: end.counters.pollErrors } : null,
    measured,
    steady,
    faultWindow,
  };
}

type Figures = ReturnType<typeof figures>;

const num = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : "-");
const cell = (value: number, width: number) => num(value).padStart(width);

function latencyTable(all: Row[]): string[] {
  const lines = [
    `${"ms".padEnd(50)}${"n".padStart(4)}${"p50".padStart(7)}${"p99".padStart(7)}${"max".padStart(7)}  target`,
  ];
  for (const { label, summary, target } of all) {
    const verdict = target ? `${target.text} ${target.met ? "met" : "MISSED"}` : "";
    lines.push(
      `${label.padEnd(50)}${String(summary.n).padStart(4)}${cell(summary.p50, 7)}${cell(summary.p99, 7)}${cell(summary.max, 7)}  ${verdict}`,
    );
  }
  return lines;
}

const verdict = (met: boolean) => (met ? "met" : "MISSED");

/** How the quiet operator hears from its agents, and the silence scenario's counts. */
function agentLines(input: ReportInput, f: Figures): string[] {
  const { traffic } = f;
  const { silence } = input;
  const lines = [
    `${"agent polls/s, pushed lines/s, heartbeats/s: quiet".padEnd(50)}${num(traffic.pollsPerS, 1)}, ${num(traffic.pushLinesPerS, 1)}, ${num(traffic.heartbeatsPerS, 1)}`,
    `${"agents judged silent (operator's counter), false".padEnd(50)}${num(f.silences)}, ${silence.falseSilences} about ${silence.falseSilentPods} pods${silence.falsePods.length > 0 ? ` (${[...new Set(silence.falsePods)].slice(0, 3).join(", ")}…)` : ""}`,
  ];
  if (silence.missed.length > 0)
    lines.push(`  frozen, never logged silent: ${silence.missed.slice(0, 10).join(", ")}`);
  const lenient = Object.entries(silence.lenient);
  if (lenient.length > 0)
    lines.push(
      `  frozen, judged leniently (3 s): ${lenient.map(([why, count]) => `${count} "${why}"`).join(", ")}`,
    );
  return lines;
}

function operatorTable(input: ReportInput, f: Figures): string[] {
  const rssTarget = rssTargetMb(input.config.nodes);
  const cpuMet = f.cpuSteadyPct / 100 < QUIET_CPU_TARGET_CORES;
  const runS = (input.end.at - input.job.createdAt) / 1000;
  const kinds = f.measured.byKind.slice(0, 8).map(([kind, count]) => `${kind} ${count}`);
  return [
    `${"operator (its own process)".padEnd(50)}value`,
    `${"RSS at the end / peak (VmHWM), MB".padEnd(50)}${num(f.rssMb)} / ${num(f.peakRssMb)}  peak < ${rssTarget} ${verdict(f.peakRssMb < rssTarget)}`,
    `${"RSS with no job yet / job Running, quiet, MB".padEnd(50)}${num(f.idleRssMb)} / ${num(f.quietRssMb)}`,
    rssTimeline(input),
    `${"CPU s, whole run (start-up included)".padEnd(50)}${num(f.cpuS, 1)}`,
    `${"CPU s, job created → Running".padEnd(50)}${num(f.cpuStartS, 1)}`,
    `${"CPU % of a core: job Running, quiet".padEnd(50)}${num(f.cpuSteadyPct)}  < ${QUIET_CPU_TARGET_CORES * 100} ${verdict(cpuMet)}`,
    `${"CPU, cores per 1,000 pods: quiet".padEnd(50)}${num(f.traffic.cpuPer1000Pods, 3)}`,
    ...agentLines(input, f),
    `${"CPU % of a core: during the faults".padEnd(50)}${num(f.cpuFaultsPct)}`,
    `${"reconciles/s, mean ms: quiet".padEnd(50)}${num(f.steadyReconciles.perSecond, 1)}, ${num(f.steadyReconciles.meanMs)}`,
    `${"reconciles/s, mean ms: during the faults".padEnd(50)}${num(f.faultReconciles.perSecond, 1)}, ${num(f.faultReconciles.meanMs)}`,
    `${"restart stages ms: replacing, stopping, starting".padEnd(50)}${RESTART_STAGES.map((stage) => num(f.faultStages[stage])).join(", ")}`,
    `${"reconcile errors, agent poll errors".padEnd(50)}${f.errors ? `${f.errors.reconcile}, ${f.errors.poll}` : "-"}`,
    `${`API requests/s, job created → end (${num(runS)} s)`.padEnd(50)}${num(f.measured.perSecond, 1)} (${f.measured.count})`,
    `${"API requests/s: quiet / during the faults".padEnd(50)}${num(f.steady.perSecond, 1)} / ${num(f.faultWindow.perSecond, 1)}`,
    `  by verb: ${kinds.join(", ")}`,
    `  pod creates answered: ${createAnswers(input)}`,
    `${`stand-in agents CPU % of a core, quiet (${input.config.agentProcesses} proc.)`.padEnd(50)}${num(f.agentsSteadyPct)}`,
    `${"apiserver+etcd+KWOK CPU % of a core, quiet".padEnd(50)}${num(f.clusterSteadyPct)}`,
  ];
}

/** The job's first pods as the apiserver saw them: how many, over how long, and each one's server time. */
function startCreates(input: ReportInput) {
  const creates = input.audit.filter(
    (entry) =>
      entry.stage === "ResponseComplete" &&
      entry.user === OPERATOR_USER &&
      entry.verb === "create" &&
      entry.resource === "pods" &&
      entry.receivedAt >= input.job.createdAt &&
      entry.stageAt <= input.job.runningAt,
  );
  if (creates.length === 0) return { count: 0, spanMs: Number.NaN, serverMs: Number.NaN };
  const first = Math.min(...creates.map((entry) => entry.receivedAt));
  const last = Math.max(...creates.map((entry) => entry.stageAt));
  const server = creates.reduce((sum, entry) => sum + (entry.stageAt - entry.receivedAt), 0);
  return { count: creates.length, spanMs: last - first, serverMs: server / creates.length };
}

/** How the apiserver answered the operator's pod creates, e.g. "201 ×261, 409 ×1". */
function createAnswers(input: ReportInput): string {
  const codes = new Map<string, number>();
  for (const entry of input.audit) {
    if (entry.stage !== "ResponseComplete" || entry.user !== OPERATOR_USER) continue;
    if (entry.verb !== "create" || entry.resource !== "pods") continue;
    const code = String(entry.code ?? "?");
    codes.set(code, (codes.get(code) ?? 0) + 1);
  }
  return [...codes.entries()].map(([code, count]) => `${code} ×${count}`).join(", ");
}

/** The operator's RSS at about a dozen moments from the job's creation to the end. */
function rssTimeline(input: ReportInput): string {
  const from = input.job.createdAt;
  const samples = input.env.operator.proc.samples().filter((sample) => sample.at >= from);
  const step = Math.max(1, Math.ceil(samples.length / 12));
  const picked = samples.filter((_, index) => index % step === 0 || index === samples.length - 1);
  return `  RSS MB over time (s after the job was created): ${picked
    .map((sample) => `+${num((sample.at - from) / 1000)} ${num(sample.rssMb)}`)
    .join(", ")}`;
}

function header(input: ReportInput): string[] {
  const { config } = input;
  const steps = input.env.steps.map(([name, ms]) => `${name.split(" (")[0]} ${num(ms / 1000, 1)} s`);
  const creates = startCreates(input);
  return [
    `Kubernetes back end: ${config.nodes * config.gpusPerNode} ranks (${config.nodes} KWOK nodes × ${config.gpusPerNode} GPUs, +${config.spareNodes} spare), ranks step ${config.stepMs > 0 ? `every ${config.stepMs} ms` : "never (static)"}, operator poll ${config.pollMs ?? "default"} ms${config.operatorNodeArgs.length > 0 ? ` (node ${config.operatorNodeArgs.join(" ")})` : ""}, ${input.faults.length} node faults, ${Math.round(input.elapsedMs / 1000)} s`,
    `set-up: ${steps.join(" · ")} · job created → Running ${num((input.job.runningAt - input.job.createdAt) / 1000, 1)} s`,
    `  of which the operator's ${creates.count} pod creates span ${num(creates.spanMs / 1000, 1)} s (${num(creates.spanMs / Math.max(1, creates.count), 1)} ms apart, ${num(creates.serverMs, 1)} ms each in the apiserver)`,
  ];
}

function benchJson(input: ReportInput, all: Row[], f: Figures): Record<string, number> {
  const json: Record<string, number> = {};
  for (const { key, summary } of all) {
    json[`${key}_p50_ms`] = round(summary.p50);
    json[`${key}_p99_ms`] = round(summary.p99);
    json[`${key}_max_ms`] = round(summary.max);
  }
  const { config } = input;
  Object.assign(json, {
    operator_rss_mb: round(f.rssMb),
    operator_peak_rss_mb: round(f.peakRssMb),
    operator_idle_rss_mb: round(f.idleRssMb),
    operator_quiet_rss_mb: round(f.quietRssMb),
    operator_cpu_s: round(f.cpuS),
    operator_cpu_job_start_s: round(f.cpuStartS),
    operator_cpu_quiet_pct: round(f.cpuSteadyPct),
    operator_cpu_faults_pct: round(f.cpuFaultsPct),
    operator_reconciles_per_s_quiet: round(f.steadyReconciles.perSecond),
    operator_reconcile_mean_ms_quiet: round(f.steadyReconciles.meanMs),
    operator_reconcile_mean_ms_faults: round(f.faultReconciles.meanMs),
    ...Object.fromEntries(
      RESTART_STAGES.map((stage) => [`restart_stage_${stage}_mean_ms`, round(f.faultStages[stage])]),
    ),
    operator_api_requests_per_s: round(f.measured.perSecond),
    operator_api_requests_per_s_quiet: round(f.steady.perSecond),
    operator_api_requests_per_s_faults: round(f.faultWindow.perSecond),
    operator_api_requests: f.measured.count,
    polls_per_s: round(f.traffic.pollsPerS),
    push_lines_per_s: round(f.traffic.pushLinesPerS),
    heartbeats_per_s: round(f.traffic.heartbeatsPerS),
    operator_cpu_per_1000_pods: Math.round(f.traffic.cpuPer1000Pods * 1000) / 1000,
    operator_silences: f.silences,
    silenced: input.silence.silenced,
    silence_detected: input.silence.detected,
    false_silences: input.silence.falseSilences,
    false_silent_pods: input.silence.falseSilentPods,
    silence_lenient_overdue_with_many: input.silence.lenient["overdue with many"] ?? 0,
    silence_lenient_settling: input.silence.lenient.settling ?? 0,
    stand_in_agents_cpu_quiet_pct: round(f.agentsSteadyPct),
    stand_in_agent_processes: config.agentProcesses,
    cluster_cpu_quiet_pct: round(f.clusterSteadyPct),
    job_start_ms: input.job.runningAt - input.job.createdAt,
    job_start_pod_creates_span_ms: round(startCreates(input).spanMs),
    nodes: config.nodes,
    spare_nodes: config.spareNodes,
    gpus_per_node: config.gpusPerNode,
    ranks: config.nodes * config.gpusPerNode,
    faults: input.faults.length,
    run_s: Math.round(input.elapsedMs / 1000),
  });
  if (config.pollMs !== null) json.operator_poll_ms = config.pollMs;
  if (config.stepMs > 0) json.step_ms = config.stepMs;
  return Object.fromEntries(Object.entries(json).filter(([, value]) => Number.isFinite(value)));
}

export function report(input: ReportInput): void {
  const all = rows(input);
  const f = figures(input);
  const lines = [
    ...header(input),
    "",
    ...latencyTable(all),
    ...faultTable(input),
    "",
    ...operatorTable(input, f),
  ];
  process.stdout.write(`${lines.join("\n")}\nBENCH k8s ${JSON.stringify(benchJson(input, all, f))}\n`);
}
