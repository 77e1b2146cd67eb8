import { DEFAULT_FLAVOR } from "@/server/domain/governance/types";
import { jobSize } from "@/server/domain/job-spec/job-size";
import { inParallel } from "@/server/in-parallel";
import { type StartRequestBody, withWireText } from "@/server/operator/agent-client";
import { appliedPolicy, rulesFingerprint } from "@/server/operator/shadow/marks";
import type { JobContext } from "./deps";
import { type ObservedPod, replacePod } from "./observe";

/**
 * The building blocks every phase uses: make the pods exist, stop every agent back to READY, start every
 * READY agent with its rank. Each is idempotent: calling it again with a fresh observation continues.
 */

function podGpus(ctx: JobContext, replicaSpec: string): number {
  const spec = jobSize(ctx.job.object).replicaSpecs.find((candidate) => candidate.name === replicaSpec);
  return spec && spec.gpusPerPod > 0 ? spec.gpusPerPod : ctx.ranksPerNode;
}

const isLive = (view: ObservedPod) =>
  view.pod !== null && (view.pod.phase === "Running" || view.pod.phase === "Pending");

/**
 * Pods are created several at a time: bench:k8s's 256 pods took 3.0 s one create at a time and 2.1 s 16 at
 * a time (1.1 s once API connections were reused; there the 2-core machine's apiserver is the limit). The back ends hold each pick until its pod
 * exists (createReservations), so concurrent creates never share a node's room.
 */
const CREATE_CONCURRENCY = 16;

/**
 * The instance type a governed job was admitted on (its flavor; Kueue's ResourceFlavors are instance types):
 * its pods go only to such nodes. The "default" flavor, and a job not governed, may use any node.
 */
function admittedInstanceType(ctx: JobContext): string | null {
  const flavor = ctx.state.admission?.flavor ?? null;
  return flavor === null || flavor === DEFAULT_FLAVOR ? null : flavor;
}

/** Creates missing (or dead, or listed in `replace`) pods. Returns how many could not be placed now. */
export async function ensurePods(
  ctx: JobContext,
  placement: { replace?: ReadonlySet<string>; avoidNodes: readonly string[]; preferNode: string | null },
): Promise<number> {
  const { backend } = ctx.deps;
  const due = ctx.obs.pods.filter(
    (view) => !isLive(view) || (placement.replace?.has(view.expected.name) ?? false),
  );
  let unplaced = 0;
  await inParallel(due, CREATE_CONCURRENCY, async (view) => {
    if (view.pod) await backend.deletePod(ctx.job.ref, view.pod.name);
    const pod = await backend.createPod({
      job: ctx.job,
      replicaSpec: view.expected.replicaSpec,
      index: view.expected.index,
      gpus: podGpus(ctx, view.expected.replicaSpec),
      avoidNodes: placement.avoidNodes,
      preferNode: placement.preferNode,
      instanceType: admittedInstanceType(ctx),
    });
    replacePod(ctx.obs, view, pod);
    if (!pod) unplaced += 1;
  });
  return unplaced;
}

/**
 * Agent calls of one step (/start, /stop, /shutdown to every agent) go out this many at a time: a 2,048-pod
 * job's sends neither open 2,048 connections nor hold 2,048 requests in memory at once.
 */
const SEND_CONCURRENCY = 64;

const agentState = (view: ObservedPod) => (view.agent.kind === "status" ? view.agent.status.status : null);

/** Sends /stop to every agent that is not READY yet; true once all are READY. */
export async function stopAgents(ctx: JobContext): Promise<boolean> {
  const { agents, config } = ctx.deps;
  const due = ctx.obs.pods.filter((view) => agentState(view) !== "ready");
  const stoppable = due.filter((view) => {
    const state = agentState(view);
    return view.pod?.agentUrl && (state === "running" || state === "faulted" || state === "completed");
  });
  const body = { restart_mode: "process_level_restart", timeout: config.stopTimeoutSeconds };
  await inParallel(stoppable, SEND_CONCURRENCY, (view) => agents.stop(view.pod?.agentUrl ?? "", body));
  return due.length === 0;
}

export async function deleteAllPods(ctx: JobContext): Promise<void> {
  const pods = [...ctx.obs.pods.flatMap((view) => (view.pod ? [view.pod] : [])), ...ctx.obs.strays];
  for (const pod of pods) await ctx.deps.backend.deletePod(ctx.job.ref, pod.name);
  for (const view of [...ctx.obs.pods]) replacePod(ctx.obs, view, null);
}

export async function shutdownAgents(ctx: JobContext): Promise<void> {
  const reachable = ctx.obs.pods.flatMap((view) => (view.pod?.agentUrl ? [view.pod.agentUrl] : []));
  await inParallel(reachable, SEND_CONCURRENCY, (url) => ctx.deps.agents.shutdown(url));
}

async function ensureRendezvous(ctx: JobContext): Promise<Rendezvous | null> {
  if (ctx.state.rendezvous) return ctx.state.rendezvous;
  const rank0 = ctx.obs.pods[0]?.pod;
  if (!rank0) return null;
  const { addr, port } = await ctx.deps.backend.rendezvous(rank0);
  ctx.state.rendezvous = { addr, port, ipVersion: new Date(ctx.now).toISOString() };
  ctx.status = { ...ctx.status, masterAddr: addr, masterPort: port };
  return ctx.state.rendezvous;
}

/** What every /start of one attempt adds for in-process agents: all agents' `worker_data`, combined. */
export type StartExtras = { workerData?: Record<string, unknown>[] };

type Rendezvous = { addr: string; port: string; ipVersion: string };
type JobWideFields = Omit<StartRequestBody, "rank" | "worker_data">;

/**
 * The job-wide part of every /start of one attempt (everything but `rank`; `worker_data` is added per call,
 * below), with its JSON text: built and serialised once per membership version (the rendezvous, the pods'
 * addresses, the restart count and the rules) and shared by every agent's body. Each body is then
 * `{"rank":N,` + this text + `}`, the same bytes JSON.stringify gave the whole body, so memory grows with
 * the pods, not their square (2,048 pods: ~70 kB of rankIps once, not 2,048 times at once).
 */
type JobWideStart = { key: string; fields: JobWideFields; text: string; bytes: Buffer };

/** Jobs whose job-wide part is kept between reconciles; past that the oldest is rebuilt when next needed. */
const JOB_WIDE_CACHE_JOBS = 32;
const jobWideCache = new Map<string, JobWideStart>();
let jobWideSerialisations = 0;

/** How many times a job-wide /start part was serialised in this process (tests). */
export const startBodySerialisations = (): number => jobWideSerialisations;

function jobWideStart(ctx: JobContext, rendezvous: Rendezvous): JobWideStart {
  const rankIps = ctx.obs.pods.flatMap((other) =>
    other.pod?.ip ? [{ ip: other.pod.ip, rank: other.expected.groupRank }] : [],
  );
  const rules = ctx.job.object.spec.runPolicy?.logMonitoringConfiguration ?? [];
  const faultCount = ctx.status.restartCount ?? 0;
  const key = [
    rendezvous.ipVersion,
    rendezvous.addr,
    rendezvous.port,
    faultCount,
    ctx.obs.pods.length,
    JSON.stringify(rules),
    rankIps.map((entry) => `${entry.rank}=${entry.ip}`).join(","),
  ].join("|");
  const cached = jobWideCache.get(ctx.job.uid);
  if (cached?.key === key) return cached;
  const fields: JobWideFields = {
    nnodes: ctx.obs.pods.length,
    faultCount,
    master_addr: rendezvous.addr,
    master_port: rendezvous.port,
    log_monitoring_configuration: rules,
    ipVersion: rendezvous.ipVersion,
    rankIps,
    spare: false,
    progress: {},
  };
  jobWideSerialisations += 1;
  const text = JSON.stringify(fields).slice(1, -1);
  // Encoded once: every agent's /start writes these same bytes (2,048 pods: ~70 kB, not 140 MB a round).
  const entry = { key, fields, text, bytes: Buffer.from(text) };
  jobWideCache.delete(ctx.job.uid);
  jobWideCache.set(ctx.job.uid, entry);
  const oldest = jobWideCache.keys().next().value;
  if (jobWideCache.size > JOB_WIDE_CACHE_JOBS && oldest !== undefined) jobWideCache.delete(oldest);
  return entry;
}

type WorkerDataPart = { value: Record<string, unknown>[]; text: string };

/** One agent's /start: its rank, and the shared job-wide parts by reference (objects and text). */
function startBody(jobWide: JobWideStart, rank: number, workerData: WorkerDataPart | null): StartRequestBody {
  const body: StartRequestBody = {
    rank,
    ...jobWide.fields,
    ...(workerData ? { worker_data: workerData.value } : {}),
  };
  const tail = workerData ? `,"worker_data":${workerData.text}}` : "}";
  return withWireText(body, () => [`{"rank":${rank},`, jobWide.bytes, tail]);
}

/** Keeps what the attempt's agents watch (status.rebound.started), for "new rules at the next restart". */
function recordStartedRules(ctx: JobContext, rules: StartRequestBody["log_monitoring_configuration"]): void {
  const logRules = rulesFingerprint(rules);
  const policy = appliedPolicy(ctx.job).text;
  const started = ctx.state.started;
  if (started && started.logRules === logRules && started.policy === policy) return;
  ctx.state.started = { logRules, policy, at: ctx.now };
}

/**
 * Sends /start to every READY agent (the others are already running or not up yet), SEND_CONCURRENCY at a
 * time; true once every agent reports RUNNING. The rendezvous is chosen once per attempt and kept in status.
 */
export async function startAgents(ctx: JobContext, extras: StartExtras = {}): Promise<boolean> {
  const rendezvous = await ensureRendezvous(ctx);
  if (!rendezvous) return false;
  const due = ctx.obs.pods.filter((view) => agentState(view) !== "running");
  const ready = due.filter((view) => agentState(view) === "ready" && view.pod?.agentUrl);
  if (ready.length > 0) {
    const jobWide = jobWideStart(ctx, rendezvous);
    const workerData = extras.workerData
      ? { value: extras.workerData, text: JSON.stringify(extras.workerData) }
      : null;
    let started = false;
    await inParallel(ready, SEND_CONCURRENCY, async (view) => {
      const body = startBody(jobWide, view.expected.groupRank, workerData);
      const result = await ctx.deps.agents.start(view.pod?.agentUrl ?? "", body);
      if (!result.ok) return;
      started = true;
      if (view.agent.kind === "status") view.agent.status.status = "running";
    });
    if (started) recordStartedRules(ctx, jobWide.fields.log_monitoring_configuration);
  }
  return due.length === 0 || ctx.obs.pods.every((view) => agentState(view) === "running");
}
