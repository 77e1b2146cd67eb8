import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { CoreV1Api, type KubeConfig, type V1Pod } from "@kubernetes/client-node";
import { readBodyText } from "@/server/agent/http-body";
import { isoTimestamp } from "@/server/agent/state";
import {
  createHeartbeats,
  createLineGate,
  type Heartbeats,
  isWatchRequest,
  type WatchStream,
} from "@/server/agent/watch";
import {
  AGENT_VERSION,
  type AgentStatus,
  type AgentStatusName,
  type RankStatus,
  RESTART_MODE,
  type StartRequest,
  startRequestSchema,
  stopRequestSchema,
  updateRequestSchema,
} from "@/server/domain/agent-api/protocol";
import type { Logger } from "@/server/log";
import { createInformer, type KubeObject, objectKey } from "../informer";
import { LABEL_JOB, podGpuRequest } from "../objects";
import { annotateAgentUrl, isBound, isGone } from "./kubelet";
import { type BodyReading, createBodyReader } from "./stand-in-bodies";
import { checkPartition, ownsPod, type StandInPartition } from "./stand-in-partition";

/**
 * Lightweight stand-ins for the agents of many KWOK pods, many in one process (bench:k8s: 256 pods on a
 * 2-core machine, where a real agent per pod would not fit; with `partition`, a few processes share the pods,
 * each serving its own part: stand-in-partition.ts). Each job pod (label HPJob) bound to a node gets
 * an HTTP server on a free loopback port that speaks the real agent protocol (server/domain/agent-api/protocol.ts,
 * docs/hyperpod-compatibility.md, "The agent protocol"): GET /status, POST /start, /stop, /update, /shutdown,
 * with the real agent's state machine (READY → RUNNING on /start; RUNNING/FAULTED → STOPPING → READY on
 * /stop) but no worker processes: every local rank (one per GPU the pod asks for) simply "runs". The pod is
 * annotated with the server's address (rebound.dev/agent-url), which the operator honours; a deleted pod's
 * server is closed. bench/k8s/stand-in-check.ts drives one through every state with the operator's own agent
 * client before each bench:k8s run.
 *
 * They push as our agent does (GET /rebound/v1/watch, server/agent/watch.ts): a line at once on a state
 * change, progress coalesced to one line a second, and a heartbeat from ONE timer shared by every stream of
 * the process. `freeze` makes a pod's agent behave as a SIGSTOPped process: its streams stay open and send
 * nothing, its HTTP requests are never answered.
 */

export type StandInAgents = {
  /** Agents serving now. */
  count(): number;
  /** Agents started since the beginning (replacement pods included). */
  started(): number;
  urlOf(namespace: string, pod: string): string | null;
  stateOf(namespace: string, pod: string): AgentStatusName | null;
  /** Turns a RUNNING agent FAULTED (as a crashed worker would); false when the pod has no running agent. */
  fault(input: { namespace: string; pod: string; reason?: string; message?: string }): boolean;
  /**
   * From now on this pod's agent sends nothing on its watch streams (left open) and never answers a request,
   * as a frozen (SIGSTOPped) process; false when the pod has no agent serving.
   */
  freeze(input: { namespace: string; pod: string }): boolean;
  /** Open watch streams, all pods together. */
  watchers(): number;
  stop(): Promise<void>;
};

/** One pod's agent, without the network: the state machine and the /status body it answers. */
export type StandInAgent = {
  state(): AgentStatusName;
  status(): AgentStatus;
  /** The /status body as JSON, rebuilt only after a change (the operator polls it many times a second). */
  statusJson(): string;
  start(body: StartRequest): CommandResult;
  stop(): CommandResult;
  update(body: { rank: number; ipVersion?: string | null }): CommandResult;
  shutdown(): CommandResult;
  fault(reason: string, message: string): boolean;
  /** Cancels a pending STOPPING → READY. */
  dispose(): void;
};

type CommandResult = { ok: true } | { ok: false; status: number; detail: string };
type Upper = "INIT" | "READY" | "RUNNING" | "COMPLETED" | "FAULTED" | "STOPPING" | "SHUTDOWN";

const MAX_BODY_BYTES = 1024 * 1024;

const refuse = (from: AgentStatusName, command: string): CommandResult => ({
  ok: false,
  status: 409,
  detail: `Cannot ${command} in state ${from.toUpperCase()}`,
});

/** A running rank as the stand-ins report it (also the tests' fixture of a /status rank). */
export function rankEntry(input: {
  localRank: number;
  rank: number;
  restarts: number;
  rules: string[];
}): RankStatus {
  return {
    local_rank: input.localRank,
    rank: input.rank,
    pid: null,
    state: "running",
    exit_code: null,
    signal: null,
    last_line: null,
    last_line_at: null,
    step: null,
    loss: null,
    throughput: null,
    rule_states: Object.fromEntries(input.rules.map((rule) => [rule, "HEALTHY" as const])),
    rule_metrics: {},
    restarts: input.restarts,
  };
}

export function createStandInAgent(opts: {
  ranks: number;
  /** How long STOPPING lasts before READY (the real agent waits for its workers to exit). */
  stopDelayMs: number;
  /** When set, running ranks report a step every `stepMs` (with loss, throughput and a log line). */
  stepMs?: number;
  clock?: () => number;
  /** Called after every change of state or assignment (the watch streams send it). */
  onChange?: () => void;
}): StandInAgent {
  const clock = opts.clock ?? Date.now;
  let state: AgentStatusName = "ready";
  const transitions: Partial<Record<Upper, string>> = { READY: isoTimestamp(clock()) };
  let detail: { reason?: string; message?: string; fault_at?: string } = {};
  let assignment: { assigned_rank?: string; ipversion?: string; progress?: Record<string, unknown> } = {};
  let ranks: RankStatus[] = [];
  let attempts = 0;
  let cached: string | null = null;
  let cachedStep = -1;
  let runningSince = 0;
  let stopTimer: NodeJS.Timeout | undefined;

  /** Ranks as they would report after `step` steps: the values a 1 Hz console view redraws. */
  const stepped = (step: number): RankStatus[] =>
    ranks.map((rank) => {
      if (rank.state !== "running") return rank;
      const loss = Number((2.5 * Math.exp(-step / 400) + ((rank.rank * 7 + step) % 10) / 1000).toFixed(4));
      const throughput = Number((1200 + ((rank.rank * 13 + step * 7) % 50)).toFixed(1));
      const at = isoTimestamp(runningSince + step * (opts.stepMs ?? 0));
      return {
        ...rank,
        step,
        loss,
        throughput,
        last_line: `step=${step} loss=${loss} throughput=${throughput} samples/s rank=${rank.rank}`,
        last_line_at: at,
      };
    });
  const currentStep = () =>
    opts.stepMs && state === "running" ? Math.floor((clock() - runningSince) / opts.stepMs) : -1;
  const reportedRanks = () => {
    const step = currentStep();
    return step >= 0 ? stepped(step) : ranks;
  };

  const enter = (next: AgentStatusName) => {
    state = next;
    transitions[next.toUpperCase() as Upper] = isoTimestamp(clock());
    cached = null;
    opts.onChange?.();
  };
  const setRanks = (rankState: RankStatus["state"]) => {
    ranks = ranks.map((rank) => ({ ...rank, state: rankState }));
  };

  const status = (): AgentStatus => ({
    status: state,
    transitions: { ...transitions },
    ...detail,
    restartMode: RESTART_MODE,
    ...(assignment.ipversion !== undefined ? { ipversion: assignment.ipversion } : {}),
    ...(assignment.progress !== undefined ? { progress: assignment.progress } : {}),
    agent_version: AGENT_VERSION,
    ...(assignment.assigned_rank !== undefined ? { assigned_rank: assignment.assigned_rank } : {}),
    spare: "False",
    ...(ranks.length > 0 ? { ranks: reportedRanks() } : {}),
  });

  return {
    state: () => state,
    status,
    statusJson() {
      const step = currentStep();
      if (step !== cachedStep) cached = null;
      cachedStep = step;
      cached ??= JSON.stringify(status());
      return cached;
    },
    start(body) {
      if (state !== "ready") return refuse(state, "start");
      const rules = (body.log_monitoring_configuration ?? []).map((rule) => rule.name);
      ranks = Array.from({ length: opts.ranks }, (_, localRank) =>
        rankEntry({ localRank, rank: body.rank * opts.ranks + localRank, restarts: attempts, rules }),
      );
      attempts += 1;
      assignment = {
        assigned_rank: String(body.rank),
        ipversion: body.ipVersion ?? undefined,
        progress: body.progress ?? {},
      };
      detail = { reason: "Running" };
      runningSince = clock();
      enter("running");
      return { ok: true };
    },
    stop() {
      if (state !== "running" && state !== "faulted" && state !== "completed") return refuse(state, "stop");
      enter("stopping");
      setRanks("stopped");
      clearTimeout(stopTimer);
      stopTimer = setTimeout(() => {
        detail = {};
        enter("ready");
      }, opts.stopDelayMs);
      return { ok: true };
    },
    update(body) {
      if (state === "shutdown") return refuse(state, "update");
      assignment = {
        ...assignment,
        assigned_rank: String(body.rank),
        ipversion: body.ipVersion ?? undefined,
      };
      cached = null;
      opts.onChange?.();
      return { ok: true };
    },
    shutdown() {
      if (state === "shutdown") return { ok: true };
      clearTimeout(stopTimer);
      setRanks("stopped");
      enter("shutdown");
      return { ok: true };
    },
    fault(reason, message) {
      if (state !== "running") return false;
      const at = clock();
      detail = { reason, message, fault_at: isoTimestamp(at) };
      ranks = ranks.map((rank, index) =>
        index === 0 ? { ...rank, state: "crashed", exit_code: 1 } : { ...rank },
      );
      enter("faulted");
      return true;
    },
    dispose: () => clearTimeout(stopTimer),
  };
}

function send(response: ServerResponse, status: number, payload: string): void {
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(payload),
  });
  response.end(payload);
}

const detailJson = (detail: unknown) => JSON.stringify({ detail });

/** Reads bodies as the real agent does; /start and /update share their job-wide part (stand-in-bodies.ts). */
const readers = {
  start: createBodyReader(startRequestSchema),
  stop: createBodyReader(stopRequestSchema),
  update: createBodyReader(updateRequestSchema),
};

type Reader<T> = { read: (text: string, optional: boolean) => BodyReading<T> };

async function command<T>(
  request: IncomingMessage,
  input: { reader: Reader<T>; optional: boolean; run: (value: T) => CommandResult },
): Promise<{ status: number; detail?: unknown }> {
  const body = await readBodyText(request, MAX_BODY_BYTES);
  if (body.kind === "too-large") return { status: 413, detail: "Request body too large (limit 1 MiB)" };
  const read = input.reader.read(body.text, input.optional);
  if (read.kind === "invalid") return { status: 422, detail: read.reason };
  if (!read.parse.ok) return { status: 422, detail: read.parse.detail };
  const result = input.run(read.parse.value);
  return result.ok ? { status: 200 } : { status: result.status, detail: result.detail };
}

async function route(
  agent: StandInAgent,
  request: IncomingMessage,
): Promise<{ status: number; detail?: unknown }> {
  const key = `${request.method} ${new URL(request.url ?? "/", "http://agent").pathname}`;
  switch (key) {
    case "GET /status":
      return { status: 200 };
    case "POST /start":
      return command(request, { reader: readers.start, optional: false, run: agent.start });
    case "POST /stop":
      return command(request, { reader: readers.stop, optional: true, run: () => agent.stop() });
    case "POST /update":
      return command(request, { reader: readers.update, optional: false, run: agent.update });
    case "POST /shutdown":
      request.resume();
      agent.shutdown();
      return { status: 200 };
    default:
      request.resume();
      return { status: 404, detail: "Not Found" };
  }
}

export type ServeOptions = {
  /** A frozen agent leaves every request unanswered. */
  frozen?: () => boolean;
  /** Takes GET /rebound/v1/watch (absent: 404, as an agent that does not push). */
  watch?: (request: IncomingMessage, response: ServerResponse) => void;
};

/** Serves one agent on a free loopback port; resolves with the server and its port. */
export function serveStandInAgent(
  agent: StandInAgent,
  options: ServeOptions = {},
): Promise<{ server: Server; port: number }> {
  const server = createServer((request, response) => {
    if (options.frozen?.()) return;
    if (options.watch && isWatchRequest(request)) return options.watch(request, response);
    route(agent, request).then(
      (reply) =>
        send(response, reply.status, reply.status === 200 ? agent.statusJson() : detailJson(reply.detail)),
      (error: unknown) => send(response, 500, detailJson(String(error))),
    );
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve({ server, port: (server.address() as AddressInfo).port });
    });
  });
}

export function closeServer(server: Server): void {
  server.close();
  server.closeAllConnections();
}

export type Running = {
  key: string;
  agent: StandInAgent;
  server: Server | null;
  url: string | null;
  frozen: boolean;
  streams: Set<WatchStream>;
  gate: ReturnType<typeof createLineGate>;
};

/** How often progress (and anything a state change did not send) is looked at, all pods together. */
const PROGRESS_SWEEP_MS = 250;

/** Sends a pod's pending line (if the gate lets one through) to each of its open streams. */
export function publish(entry: Running): void {
  if (entry.frozen || entry.streams.size === 0) return;
  const line = entry.gate.next(entry.agent.state(), () => entry.agent.statusJson());
  if (line === null) return;
  for (const stream of entry.streams) stream.send(line);
}

export function watchHandler(entry: Running, heartbeats: Heartbeats) {
  return (request: IncomingMessage, response: ServerResponse) => {
    const first = entry.agent.statusJson();
    entry.gate.seen(entry.agent.state(), first);
    const stream = heartbeats.open({ request, response, first, muted: () => entry.frozen });
    entry.streams.add(stream);
    response.on("close", () => entry.streams.delete(stream));
  };
}

export async function startStandInAgents(opts: {
  kubeConfig: KubeConfig;
  log: Logger;
  /** STOPPING → READY after this long (default 5 ms). */
  stopDelayMs?: number;
  /** Local ranks per pod; default: the GPUs the pod asks for (at least 1). */
  ranksPerPod?: number;
  /** Running ranks report a new step this often (default: never; their status stays the same). */
  stepMs?: number;
  /** Serve only this part's pods (default: every pod, one process for all). */
  partition?: StandInPartition;
}): Promise<StandInAgents> {
  const partition = opts.partition ? checkPartition(opts.partition) : null;
  const owned = (pod: V1Pod) =>
    partition === null ||
    ownsPod(partition, { namespace: pod.metadata?.namespace ?? "", name: pod.metadata?.name ?? "" });
  const core = opts.kubeConfig.makeApiClient(CoreV1Api);
  const byUid = new Map<string, Running>();
  const stopDelayMs = opts.stopDelayMs ?? 5;
  const ranksOf = (pod: V1Pod) => opts.ranksPerPod ?? Math.max(1, podGpuRequest(pod));
  let total = 0;
  let stopped = false;
  const heartbeats = createHeartbeats();
  const sweep = setInterval(() => {
    for (const entry of byUid.values()) publish(entry);
  }, PROGRESS_SWEEP_MS);
  sweep.unref();

  const close = (uid: string) => {
    const entry = byUid.get(uid);
    if (!entry) return;
    byUid.delete(uid);
    entry.agent.dispose();
    if (entry.server) closeServer(entry.server);
  };

  const launch = async (pod: V1Pod, entry: Running) => {
    const { server, port } = await serveStandInAgent(entry.agent, {
      frozen: () => entry.frozen,
      watch: watchHandler(entry, heartbeats),
    });
    if (stopped || byUid.get(pod.metadata?.uid ?? "") !== entry) return closeServer(server);
    entry.server = server;
    entry.url = `http://127.0.0.1:${port}`;
    total += 1;
    await annotateAgentUrl(core, pod, entry.url, () => stopped);
  };

  const reconcile = (type: string, pod: V1Pod | null) => {
    if (!pod || stopped || !owned(pod)) return;
    const uid = pod.metadata?.uid ?? "";
    if (isGone(type, pod)) return close(uid);
    if (!isBound(pod) || byUid.has(uid)) return;
    const entry: Running = {
      key: objectKey(pod as KubeObject),
      agent: createStandInAgent({
        ranks: ranksOf(pod),
        stopDelayMs,
        stepMs: opts.stepMs,
        onChange: () => publish(entry),
      }),
      server: null,
      url: null,
      frozen: false,
      streams: new Set(),
      gate: createLineGate(),
    };
    byUid.set(uid, entry);
    launch(pod, entry).catch((error: unknown) => {
      opts.log.warn("stand-in agent could not start", { pod: entry.key, error: String(error) });
      close(uid);
    });
  };

  const informer = createInformer<V1Pod & KubeObject>({
    name: "stand-in-agents",
    kubeConfig: opts.kubeConfig,
    log: opts.log,
    watchPath: "/api/v1/pods",
    query: { labelSelector: LABEL_JOB },
    list: () => core.listPodForAllNamespaces({ labelSelector: LABEL_JOB }) as never,
    onEvent: (type, pod) => (type === "RELISTED" ? resync() : reconcile(type, pod)),
  });
  // After a (re)list: pods gone meanwhile lose their agent, pods new meanwhile get one.
  function resync() {
    const listed = informer.list();
    const live = new Set(listed.map((pod) => pod.metadata?.uid ?? ""));
    for (const uid of [...byUid.keys()]) if (!live.has(uid)) close(uid);
    for (const pod of listed) reconcile("ADDED", pod);
  }
  await informer.start();
  resync();

  const find = (namespace: string, pod: string) => {
    const key = `${namespace}/${pod}`;
    for (const entry of byUid.values()) if (entry.key === key && entry.url) return entry;
    return undefined;
  };

  return {
    count: () => [...byUid.values()].filter((entry) => entry.server).length,
    started: () => total,
    urlOf: (namespace, pod) => find(namespace, pod)?.url ?? null,
    stateOf: (namespace, pod) => find(namespace, pod)?.agent.state() ?? null,
    fault: (input) =>
      find(input.namespace, input.pod)?.agent.fault(
        input.reason ?? "WorkerCrash",
        input.message ?? "a worker exited with code 1 (stand-in fault)",
      ) ?? false,
    freeze(input) {
      const entry = find(input.namespace, input.pod);
      if (!entry) return false;
      entry.frozen = true;
      return true;
    },
    watchers: () => heartbeats.count(),
    async stop() {
      stopped = true;
      clearInterval(sweep);
      heartbeats.stop();
      informer.stop();
      for (const uid of [...byUid.keys()]) close(uid);
    },
  };
}
