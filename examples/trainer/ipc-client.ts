import { randomUUID } from "node:crypto";
import { connect, type Socket } from "node:net";
import { createFrameDecoder, frameMessage, parseMessage } from "../../server/agent/ipr/framing";
import { createFaultLatch } from "./fault-latch";

/**
 * The trainer's end of HyperPod's IPC (hyperpod_elastic_agent/ipc/client.py, InProcessRestartSocketClient),
 * on the same wire as the agent (4-byte big-endian length + JSON): connect to
 * HYPERPOD_ELASTICAGENT_SOCKET_SERVER_PATH and send `init` {local_rank, client_id}; every message carries
 * `type`, `local_rank` and `client_id`.
 *   barrier()      at_rcb_barrier, then wait for job_start {worker_envs, aggregate_worker_data}  (hp_barrier)
 *   pastBarrier()  past_rcb_barrier
 *   sendData()     job_data {rank, data}: shown to the operator as /status worker_data
 *   sendFault()    job_fault {rank, restart_mode, reason, message}: a fault this rank found itself
 *   armFault(fn)   job_fault {restart_count} from the agent: leave the block, go back to the barrier; a
 *                  job_fault that came since job_start, before the loop armed, fires at once (fault-latch.ts)
 */

export type RankIp = { ip: string; rank: number };
export type WorkerDataEntry = {
  rank: number;
  group_rank: number;
  local_rank: number;
  failed?: boolean;
  data?: unknown;
};
export type JobStart = {
  worker_envs: Record<string, string>;
  aggregate_worker_data: {
    rank_ips?: RankIp[] | null;
    aggregate_worker_data?: WorkerDataEntry[] | null;
  } | null;
};

export type IpcClient = {
  barrier(): Promise<JobStart>;
  pastBarrier(): void;
  sendData(rank: number, data: string): void;
  sendFault(input: { rank: number; restartMode?: string; reason?: string; message?: string }): void;
  /** Calls `onFault` once, on a later turn, for the first job_fault since the last job_start. */
  armFault(onFault: () => void): void;
  close(): void;
};

type Send = (type: string, body?: Record<string, unknown>) => void;

/**
 * Routes the agent's messages: job_start to the rank waiting at the barrier, job_fault to the fault latch.
 * The latch learns of job_start here, as the message comes, not when the rank's await resumes: a job_fault
 * read from the same chunk right after it must count as one inside the block.
 */
function createReceiver() {
  let waiting: ((start: JobStart) => void) | null = null;
  const latch = createFaultLatch();
  return {
    wait: (resolve: (start: JobStart) => void) => {
      waiting = resolve;
    },
    armFault: (onFault: () => void) => latch.arm(onFault),
    receive(message: Record<string, unknown>) {
      if (message.type === "job_start") {
        const resolveStart = waiting;
        waiting = null;
        latch.enterBlock();
        resolveStart?.(message as unknown as JobStart);
      } else if (message.type === "job_fault") {
        latch.onJobFault();
      }
    },
  };
}

function clientOf(input: {
  socket: Socket;
  send: Send;
  receiver: ReturnType<typeof createReceiver>;
}): IpcClient {
  const { socket, send, receiver } = input;
  return {
    barrier: () =>
      new Promise<JobStart>((resolve) => {
        receiver.wait(resolve);
        send("at_rcb_barrier");
      }),
    pastBarrier: () => send("past_rcb_barrier"),
    sendData: (rank, data) => send("job_data", { rank, data }),
    sendFault: ({ rank, restartMode, reason, message }) =>
      send("job_fault", {
        rank,
        restart_mode: restartMode ?? "in_process_restart",
        reason: reason ?? null,
        message: message ?? null,
      }),
    armFault: (onFault) => receiver.armFault(onFault),
    close: () => {
      socket.removeAllListeners("close");
      socket.destroy();
    },
  };
}

export function connectIpc(input: { path: string; localRank: number }): Promise<IpcClient> {
  const clientId = randomUUID();
  const decoder = createFrameDecoder();
  const receiver = createReceiver();
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(input.path);
    const send: Send = (type, body = {}) =>
      void socket.write(frameMessage({ ...body, type, local_rank: input.localRank, client_id: clientId }));
    socket.on("data", (chunk: Buffer) => {
      for (const payload of decoder.push(chunk)) {
        const message = parseMessage(payload);
        if (message !== null && message.client_id === clientId) receiver.receive(message);
      }
    });
    socket.once("error", reject);
    socket.once("connect", () => {
      socket.off("error", reject);
      // The agent going away ends this worker, as it ends a torchrun worker.
      socket.on("close", () => process.exit(1));
      send("init");
      resolve(clientOf({ socket, send, receiver }));
    });
  });
}
