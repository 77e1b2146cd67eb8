import { readCheckpoint } from "./checkpoint";
import { createControlPoller } from "./faults";
import { connectIpc, type IpcClient, type JobStart } from "./ipc-client";
import {
  announcement,
  checksum,
  fetchPeerState,
  initialState,
  newestPeerState,
  peersFor,
  startPeerServer,
  type TrainingState,
} from "./peer-state";
import type { TorchEnv, TrainerOptions } from "./trainer-options";
import { saveCheckpoint, scheduledFor, type Trainer, trainStep } from "./training";

/**
 * The demo trainer under an in-process-restart agent (INPROCESS_RESTART=1, hyperpodrun --inprocess-restart),
 * the shape of HyperPod's checkpointless training loop:
 *
 *   start-up (model load) once per process → loop { hp_barrier (wait for job_start with this run's RANK,
 *   WORLD_SIZE, …) → past_rcb_barrier → train until a job_fault → back to the barrier }
 *
 * A rank that keeps its process keeps its state: "in-process restart: kept state step=S …". A new process
 * (first start, or a process-level restart of its node) takes its state from a healthy data-parallel peer
 * with --peer-recovery ("state from peer rank=N step=S …", no step lost), else from the checkpoint.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const envInt = (envs: Record<string, string>, name: string, fallback: number) => {
  const value = Number(envs[name]);
  return Number.isInteger(value) ? value : fallback;
};

function torchFrom(start: JobStart, previous: TorchEnv): TorchEnv {
  const envs = start.worker_envs ?? {};
  return {
    ...previous,
    rank: envInt(envs, "RANK", previous.rank),
    worldSize: envInt(envs, "WORLD_SIZE", previous.worldSize),
    restartCount: envInt(envs, "JOB_RESTART_COUNT", previous.restartCount),
  };
}

async function fromPeer(start: JobStart, torch: TorchEnv, stepMs: number): Promise<TrainingState | null> {
  const aggregate = start.aggregate_worker_data;
  const peers = peersFor({
    rank: torch.rank,
    localRank: torch.localRank,
    rankIps: aggregate?.rank_ips ?? [],
    workerData: aggregate?.aggregate_worker_data ?? [],
  });
  // Peers a step or two apart are as good as each other: waiting longer for a slow one costs more.
  const newest = await newestPeerState(peers, { graceMs: Math.max(100, 2 * stepMs) });
  if (newest !== null) {
    const { peer, state } = newest;
    process.stdout.write(
      `state from peer rank=${peer.rank} step=${state.step} weights=${checksum(state)} rank=${torch.rank} at=${Date.now()}\n`,
    );
    return state;
  }
  if (peers.length > 0)
    process.stdout.write(`no peer answered: state from the checkpoint rank=${torch.rank} at=${Date.now()}\n`);
  return null;
}

async function firstState(input: {
  start: JobStart;
  torch: TorchEnv;
  options: TrainerOptions;
}): Promise<TrainingState> {
  const { start, torch, options } = input;
  const peer = options.peerRecovery ? await fromPeer(start, torch, options.stepMs) : null;
  if (peer !== null) return peer;
  const resumed = readCheckpoint(options.checkpointDir);
  if (resumed !== null)
    process.stdout.write(`resuming from checkpoint at step ${resumed} at=${Date.now()}\n`);
  return initialState(resumed ?? 0);
}

/**
 * One request to this rank's own peer server (404: no state yet). A fresh process's first node:http call
 * loads and compiles the client (tens of ms on a loaded machine); a restarted rank's first call is the one
 * that fetches its state after job_start, so it is made once while the rank waits at the barrier.
 */
function warmUp(port: number): Promise<unknown> {
  return fetchPeerState({ rank: -1, url: `http://127.0.0.1:${port}/state` }, 1000);
}

/** Trains until the agent sends job_fault (resolves) or the last step (exits). */
function trainUntilFault(t: Trainer, ipc: Pick<IpcClient, "armFault">): Promise<void> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    let faulted = false;
    const loop = () => {
      if (!faulted) timer = setTimeout(loop, trainStep(t));
    };
    ipc.armFault(() => {
      faulted = true;
      clearTimeout(timer);
      process.stdout.write(`job_fault: back to the barrier at step ${t.state.step} rank=${t.torch.rank}\n`);
      resolve();
    });
    timer = setTimeout(loop, t.options.stepMs);
  });
}

function beginRun(t: Trainer, torch: TorchEnv): void {
  t.torch = torch;
  t.mode = { hang: false, nan: false, slow: false };
  t.scheduled = scheduledFor(torch);
  const { controlFile } = t.options;
  t.poll = controlFile
    ? createControlPoller({ file: controlFile, rank: torch.rank, startedAt: Date.now() })
    : () => null;
}

export async function runInProcess(input: {
  options: TrainerOptions;
  torch: TorchEnv;
  socketPath: string;
}): Promise<void> {
  const { options } = input;
  let torch = input.torch;
  let t: Trainer | null = null;
  const peer = await startPeerServer({ state: () => t?.state ?? null, rank: () => torch.rank });
  const ipc = await connectIpc({ path: input.socketPath, localRank: torch.localRank });
  process.on("SIGUSR1", () => {
    if (t !== null) saveCheckpoint(t);
    process.stdout.write(`checkpoint saved on SIGUSR1 rank=${torch.rank}\n`);
    process.exit(0);
  });
  process.stdout.write(
    `training started (in-process restart) local_rank=${torch.localRank} peer_port=${peer.port} peer_recovery=${options.peerRecovery} at=${Date.now()}\n`,
  );
  await sleep(options.startupMs);
  for (;;) {
    const waiting = ipc.barrier();
    // A new process warms its HTTP client while it waits at the barrier, off the recovery's path.
    if (t === null && options.peerRecovery) void warmUp(peer.port);
    const start = await waiting;
    ipc.pastBarrier();
    torch = torchFrom(start, torch);
    if (t === null) {
      const state = await firstState({ start, torch, options });
      t = {
        options,
        torch,
        scheduled: [],
        poll: () => null,
        mode: { hang: false, nan: false, slow: false },
        state,
      };
    } else {
      process.stdout.write(
        `in-process restart: kept state step=${t.state.step} weights=${checksum(t.state)} rank=${torch.rank} restart=${torch.restartCount}\n`,
      );
    }
    beginRun(t, torch);
    process.stdout.write(
      `run started rank=${torch.rank} world_size=${torch.worldSize} step=${t.state.step}\n`,
    );
    ipc.sendData(torch.rank, announcement(peer.port));
    await trainUntilFault(t, ipc);
    // Paused: the step this rank holds until the next job_start, for a restarted rank to know (peer-state.ts).
    ipc.sendData(torch.rank, announcement(peer.port, t.state.step));
  }
}
