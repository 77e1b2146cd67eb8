import { DEFAULT_FLAVOR } from "@/server/domain/governance/types";
import { jobTotals } from "@/server/domain/job-spec/job-totals";
import { inParallel } from "@/server/in-parallel";
import type { StartRequestBody } from "@/server/operator/agent-client";
import { appliedPolicy, rulesFingerprint } from "@/server/operator/shadow/marks";
import type { JobContext } from "./deps";
import type { PodView } from "./observe";

/**
 * The building blocks every phase uses: make the pods exist, stop every agent back to READY, start every
 * READY agent with its rank. Each is idempotent: calling it again with a fresh observation continues.
 */

function podGpus(ctx: JobContext, replicaSpec: string): number {
  const spec = jobTotals(ctx.job.job).replicaSpecs.find((candidate) => candidate.name === replicaSpec);
  return spec && spec.gpusPerPod > 0 ? spec.gpusPerPod : ctx.ranksPerNode;
}

const isLive = (view: PodView) =>
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
    view.pod = pod;
    view.agent = { kind: "none" };
    if (!pod) unplaced += 1;
  });
  return unplaced;
}

/** Sends /stop to every agent that is not READY yet; true once all are READY. */
export async function stopAgents(ctx: JobContext): Promise<boolean> {
  const { agents, config } = ctx.deps;
  let allReady = true;
  await Promise.all(
    ctx.obs.pods.map(async (view) => {
      const state = view.agent.kind === "status" ? view.agent.status.status : null;
      if (state === "ready") return;
      allReady = false;
      if (!view.pod?.agentUrl || (state !== "running" && state !== "faulted" && state !== "completed"))
        return;
      await agents.stop(view.pod.agentUrl, {
        restart_mode: "process_level_restart",
        timeout: config.stopTimeoutSeconds,
      });
    }),
  );
  return allReady;
}

export async function deleteAllPods(ctx: JobContext): Promise<void> {
  const pods = [...ctx.obs.pods.flatMap((view) => (view.pod ? [view.pod] : [])), ...ctx.obs.strays];
  for (const pod of pods) await ctx.deps.backend.deletePod(ctx.job.ref, pod.name);
  for (const view of ctx.obs.pods) {
    view.pod = null;
    view.agent = { kind: "none" };
  }
}

export async function shutdownAgents(ctx: JobContext): Promise<void> {
  await Promise.all(
    ctx.obs.pods.map((view) =>
      view.pod?.agentUrl ? ctx.deps.agents.shutdown(view.pod.agentUrl) : undefined,
    ),
  );
}

async function ensureRendezvous(
  ctx: JobContext,
): Promise<{ addr: string; port: string; ipVersion: string } | null> {
  if (ctx.state.rendezvous) return ctx.state.rendezvous;
  const rank0 = ctx.obs.pods[0]?.pod;
  if (!rank0) return null;
  const { addr, port } = await ctx.deps.backend.rendezvous(rank0);
  ctx.state.rendezvous = { addr, port, ipVersion: new Date(ctx.now).toISOString() };
  ctx.status = { ...ctx.status, masterAddr: addr, masterPort: port };
  return ctx.state.rendezvous;
}

/** What every /start of one attempt adds for in-process agents: all agents' `worker_data`, combined. */
export type StartExtras = { workerData?: readonly Record<string, unknown>[] };

function startBody(
  ctx: JobContext,
  view: PodView,
  rendezvous: { addr: string; port: string; ipVersion: string },
  extras: StartExtras,
) {
  const body: StartRequestBody = {
    rank: view.expected.groupRank,
    nnodes: ctx.obs.pods.length,
    faultCount: ctx.status.restartCount ?? 0,
    master_addr: rendezvous.addr,
    master_port: rendezvous.port,
    log_monitoring_configuration: ctx.job.job.spec.runPolicy?.logMonitoringConfiguration ?? [],
    ipVersion: rendezvous.ipVersion,
    rankIps: ctx.obs.pods.flatMap((other) =>
      other.pod?.ip ? [{ ip: other.pod.ip, rank: other.expected.groupRank }] : [],
    ),
    spare: false,
    progress: {},
    ...(extras.workerData ? { worker_data: [...extras.workerData] } : {}),
  };
  return body;
}

/** Keeps what the attempt's agents watch (status.rebound.started), for "new rules at the next restart". */
function recordStartedRules(ctx: JobContext, rules: StartRequestBody["log_monitoring_configuration"]): void {
  const logRules = rulesFingerprint(rules);
  const policy = appliedPolicy(ctx.job).text;
  const started = ctx.state.started;
  if (started && started.logRules === logRules && started.policy === policy) return;
  ctx.state.started = { logRules, policy, at: ctx.now };
}

async function startAgent(
  ctx: JobContext,
  view: PodView,
  at: { agentUrl: string; rendezvous: { addr: string; port: string; ipVersion: string } },
  extras: StartExtras,
): Promise<void> {
  const body = startBody(ctx, view, at.rendezvous, extras);
  const result = await ctx.deps.agents.start(at.agentUrl, body);
  if (!result.ok) return;
  recordStartedRules(ctx, body.log_monitoring_configuration);
  if (view.agent.kind === "status") view.agent.status.status = "running";
}

/**
 * Sends /start to every READY agent (the others are already running or not up yet); true once every agent
 * reports RUNNING. The rendezvous is chosen once per attempt and kept in status.
 */
export async function startAgents(ctx: JobContext, extras: StartExtras = {}): Promise<boolean> {
  const rendezvous = await ensureRendezvous(ctx);
  if (!rendezvous) return false;
  let allRunning = true;
  await Promise.all(
    ctx.obs.pods.map(async (view) => {
      const state = view.agent.kind === "status" ? view.agent.status.status : null;
      if (state === "running") return;
      allRunning = false;
      if (state !== "ready" || !view.pod?.agentUrl) return;
      await startAgent(ctx, view, { agentUrl: view.pod.agentUrl, rendezvous }, extras);
    }),
  );
  return (
    allRunning ||
    ctx.obs.pods.every((view) => view.agent.kind === "status" && view.agent.status.status === "running")
  );
}
