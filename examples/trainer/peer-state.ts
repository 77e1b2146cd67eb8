import { createServer, get, type Server } from "node:http";
import type { RankIp, WorkerDataEntry } from "./ipc-client";

/**
 * Peer-state recovery for the demo trainer: every rank serves its training state (step, loss state, a few
 * KB of "weights" and optimizer moments) on `GET /state` from a small HTTP server; a restarted rank fetches
 * it from a healthy data-parallel peer instead of reading the checkpoint, so no step is lost. Every rank
 * of the demo is a data-parallel replica of the same model.
 *
 * Finding a peer, as HyperPod's IPC does it: each rank announces `{"peer_port": N}` as its job_data; the
 * agent shows it to the operator as /status worker_data; the operator hands every agent's worker_data back
 * in /start, and the agent gives it to the ranks in job_start's aggregate_worker_data with rank_ips (pod
 * address by group rank). A peer is an entry that is not this rank, not failed, with a port.
 *
 * A rank paused by a fault (job_fault) announces again before it goes back to the barrier, with the step it
 * holds: `{"peer_port": N, "step": S}`. A paused rank's state does not change until the next job_start, so
 * a restarted rank knows from job_start which step the newest peer holds, and takes the first answer at that
 * step or later instead of waiting to see whether a newer one comes (newestPeerState). The same job_data
 * message, so the same wire for HyperPod's agent: its worker group keeps a rank's data until the rank
 * passes the barrier again (ipc/util.py notify_rank_past_barrier).
 */

export const WEIGHTS = 512;

export type TrainingState = {
  step: number;
  lossEma: number;
  weights: number[];
  momentum: number[];
};

export function initialState(step: number): TrainingState {
  const weights = Array.from({ length: WEIGHTS }, (_, i) => Math.sin(i + 1) * 0.1);
  return { step, lossEma: 2.5, weights, momentum: new Array(WEIGHTS).fill(0) };
}

/** One optimizer step: the same on every replica for the same step (data parallel, gradients all-reduced). */
export function applyStep(state: TrainingState, loss: number): void {
  for (let i = 0; i < WEIGHTS; i++) {
    const gradient = Math.cos(state.step * 0.01 + i) * 0.001;
    const m = 0.9 * (state.momentum[i] ?? 0) + gradient;
    state.momentum[i] = m;
    state.weights[i] = (state.weights[i] ?? 0) - 0.01 * m;
  }
  state.lossEma = 0.9 * state.lossEma + 0.1 * loss;
}

/** A short fingerprint of the weights, printed so replicas can be compared in the logs. */
export function checksum(state: TrainingState): string {
  let sum = 0;
  for (let i = 0; i < state.weights.length; i++) sum += (state.weights[i] ?? 0) * (i + 1);
  return sum.toFixed(6);
}

export function startPeerServer(input: { state: () => TrainingState | null; rank: () => number }): Promise<{
  server: Server;
  port: number;
}> {
  const server = createServer((request, response) => {
    const state = input.state();
    if (request.url !== "/state" || state === null) {
      response.writeHead(404).end();
      return;
    }
    const body = JSON.stringify({ rank: input.rank(), ...state });
    response.writeHead(200, { "content-type": "application/json" }).end(body);
  });
  return new Promise((resolve) => {
    server.listen(0, "0.0.0.0", () => {
      const address = server.address();
      resolve({ server, port: typeof address === "object" && address !== null ? address.port : 0 });
    });
  });
}

/** A peer to ask; `step`: the step it announced when it paused (null: it did not say). */
export type Peer = { rank: number; url: string; step?: number | null };

/** What a rank announced as its job_data: its peer port, and the step it holds if it paused. */
export function announcement(port: number, step?: number): string {
  return JSON.stringify(step === undefined ? { peer_port: port } : { peer_port: port, step });
}

const isInt = (value: unknown): value is number => typeof value === "number" && Number.isInteger(value);

function announced(entry: WorkerDataEntry): { port: number; step: number | null } | null {
  try {
    const data: unknown = typeof entry.data === "string" ? JSON.parse(entry.data) : entry.data;
    if (typeof data !== "object" || data === null) return null;
    const { peer_port: port, step } = data as { peer_port?: unknown; step?: unknown };
    return isInt(port) ? { port, step: isInt(step) ? step : null } : null;
  } catch {
    return null;
  }
}

/**
 * Healthy peers to ask: those holding the newest announced step first, then the same local rank (the same
 * shard position on another node).
 */
export function peersFor(input: {
  rank: number;
  localRank: number;
  rankIps: readonly RankIp[];
  workerData: readonly WorkerDataEntry[];
}): Peer[] {
  const ipOf = new Map(input.rankIps.map((entry) => [entry.rank, entry.ip]));
  const peers = input.workerData
    .filter((entry) => entry.rank !== input.rank && entry.failed !== true)
    .flatMap((entry) => {
      const said = announced(entry);
      const ip = ipOf.get(entry.group_rank);
      if (said === null || ip === undefined) return [];
      const url = `http://${ip}:${said.port}/state`;
      return [
        { rank: entry.rank, url, step: said.step, sameLocalRank: entry.local_rank === input.localRank },
      ];
    });
  const newest = Math.max(...peers.map((peer) => peer.step ?? Number.NEGATIVE_INFINITY));
  const score = (peer: (typeof peers)[number]) =>
    2 * Number(peer.step === newest) + Number(peer.sameLocalRank);
  return peers
    .sort((a, b) => score(b) - score(a))
    .map(({ rank, url, step }) => (step === null ? { rank, url } : { rank, url, step }));
}

/** The body of a GET, or null on any error, a status other than 200, or no answer within `timeoutMs`. */
function getText(url: string, timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    const request = get(url, { timeout: timeoutMs }, (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        resolve(null);
        return;
      }
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
      response.on("error", () => resolve(null));
    });
    request.on("timeout", () => request.destroy());
    request.on("error", () => resolve(null));
  });
}

function parseState(text: string): TrainingState | null {
  try {
    const { step, lossEma, weights, momentum } = JSON.parse(text) as Partial<TrainingState>;
    if (
      typeof step !== "number" ||
      typeof lossEma !== "number" ||
      !Array.isArray(weights) ||
      !Array.isArray(momentum)
    )
      return null;
    return { step, lossEma, weights, momentum };
  } catch {
    return null;
  }
}

/**
 * A peer's state over plain node:http, not fetch(): Node loads fetch's HTTP client (undici) on its first
 * call, and a restarted rank's first call is this one, on the way to its first step. Eight first calls
 * from a fresh process: 130-236 ms with fetch, 39-65 ms with node:http (load 11-16 on 2 cores, nice 0).
 */
export async function fetchPeerState(peer: Peer, timeoutMs = 5000): Promise<TrainingState | null> {
  const text = await getText(peer.url, timeoutMs);
  return text === null ? null : parseState(text);
}

/** Peers asked at once by a restarted rank (the first ones peersFor lists: the same local rank first). */
export const PEERS_ASKED = 8;

/**
 * Peers asked when they announced their steps (peersFor puts the newest first): any one of them at the
 * newest step will do, so a few are enough, and eight restarted ranks asking eight peers each (64 requests
 * and 64 states of a few KB parsed by fresh processes, as every healthy rank resumes) cost CPU on the path.
 */
export const PEERS_ASKED_ANNOUNCED = 3;

type Answer = { peer: Peer; state: TrainingState };

/** The newest step the peers asked announced (peersFor), or null when none said. */
function newestAnnounced(peers: readonly Peer[]): number | null {
  const steps = peers.flatMap((peer) => (peer.step == null ? [] : [peer.step]));
  return steps.length > 0 ? Math.max(...steps) : null;
}

/** The answers so far: the newest state among them, and whether to wait for more. */
function answerBook(peers: readonly Peer[]) {
  let newest: Answer | null = null;
  let pending = peers.length;
  const enough = newestAnnounced(peers);
  return {
    newest: () => newest,
    /** Records one answer; true when every peer answered, or one at the newest step announced. */
    add(answer: { peer: Peer; state: TrainingState | null }): boolean {
      pending -= 1;
      const { peer, state } = answer;
      if (state !== null && (newest === null || state.step > newest.state.step)) newest = { peer, state };
      return pending <= 0 || (enough !== null && newest !== null && newest.state.step >= enough);
    },
  };
}

/**
 * The newest state among the first PEERS_ASKED peers (PEERS_ASKED_ANNOUNCED when they announced their
 * steps), asked at once. In a synchronous data-parallel job
 * every healthy replica holds the same step; the demo's ranks step on their own, so the newest one is the
 * job's progress and taking it loses the fewest steps. An answer at the newest step a peer announced
 * (peersFor) is taken at once: no peer holds a newer one. Otherwise it does not wait for the slowest peer:
 * once one has answered, the others get `graceMs` more (a step or two: enough for peers at the same step),
 * then the newest answer so far is taken. Waiting for all of them made a restore take seconds whenever one
 * peer was slow to answer (a loaded machine), while the restored rank trained nothing. Null when none
 * answers.
 */
export function newestPeerState(
  peers: readonly Peer[],
  options: { fetchState?: (peer: Peer) => Promise<TrainingState | null>; graceMs?: number } = {},
): Promise<Answer | null> {
  const { fetchState = fetchPeerState, graceMs = 200 } = options;
  const asked = peers.slice(0, newestAnnounced(peers) === null ? PEERS_ASKED : PEERS_ASKED_ANNOUNCED);
  const book = answerBook(asked);
  return new Promise((resolve) => {
    let grace: NodeJS.Timeout | null = null;
    let finished = false;
    const finish = () => {
      if (grace !== null) clearTimeout(grace);
      finished = true;
      resolve(book.newest());
    };
    const onAnswer = (peer: Peer, state: TrainingState | null) => {
      if (finished) return;
      if (book.add({ peer, state })) finish();
      else if (book.newest() !== null && grace === null) grace = setTimeout(finish, graceMs);
    };
    if (asked.length === 0) finish();
    for (const peer of asked) void fetchState(peer).then((state) => onAnswer(peer, state));
  });
}
