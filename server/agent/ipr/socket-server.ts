import { existsSync, unlinkSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createFrameDecoder, frameMessage, parseMessage } from "./framing";

/**
 * The agent's end of HyperPod's IPC (ipc/socket.py, HyperPodElasticAgentSocketServer): a unix stream
 * socket at `<tmpdir>/hyperpod_elastic_agent_<agent pid>.sock`, given to workers as
 * HYPERPOD_ELASTICAGENT_SOCKET_SERVER_PATH. A client's first message is `init` {local_rank, client_id};
 * every later message carries `type`, `local_rank` and `client_id` and goes to `onMessage` (messages
 * without them are ignored, as HyperPod). A reply goes back on the same connection with the sender's
 * `client_id`. A closed connection drops its clients.
 */

export type ClientMessage = {
  type: string;
  localRank: number;
  clientId: string;
  body: Record<string, unknown>;
};

export type IpcServer = {
  readonly path: string;
  /** Local ranks with at least one connected client. */
  clientRanks(): Set<number>;
  sendToRank(localRank: number, type: string, message?: Record<string, unknown>): boolean;
  broadcast(type: string, message?: Record<string, unknown>): boolean;
  /** Drops every client connection (a process-level restart does not wait for the workers' exits). */
  clearClients(): void;
  /** Drops the local rank's connections without `onDisconnect` (the rank is being restarted alone). */
  dropRank(localRank: number): void;
  close(): Promise<void>;
};

export function socketPathFor(pid: number): string {
  return path.join(tmpdir(), `hyperpod_elastic_agent_${pid}.sock`);
}

type Client = { socket: Socket; localRank: number };

export async function startIpcServer(input: {
  path: string;
  /** Returns a reply for the sender, or null. */
  onMessage: (message: ClientMessage) => Record<string, unknown> | null;
  /** A connection of these local ranks closed (a worker exited, or dropped its client). */
  onDisconnect?: (localRanks: number[]) => void;
  onError?: (error: string) => void;
}): Promise<IpcServer> {
  if (existsSync(input.path)) unlinkSync(input.path);
  const clients = new Map<string, Client>();
  const sockets = new Set<Socket>();
  const write = (socket: Socket, message: Record<string, unknown>): boolean => {
    if (socket.destroyed) return false;
    socket.write(frameMessage(message));
    return true;
  };
  const drop = (socket: Socket) => {
    if (!sockets.delete(socket)) return;
    const ranks: number[] = [];
    for (const [id, client] of clients) {
      if (client.socket !== socket) continue;
      clients.delete(id);
      ranks.push(client.localRank);
    }
    if (ranks.length > 0) input.onDisconnect?.(ranks);
  };
  const handle = (socket: Socket, raw: Record<string, unknown>) => {
    const { type, local_rank: localRank, client_id: clientId, ...body } = raw;
    if (typeof type !== "string" || typeof clientId !== "string" || typeof localRank !== "number") return;
    if (type === "init") {
      clients.set(clientId, { socket, localRank });
      return;
    }
    const reply = input.onMessage({ type, localRank, clientId, body: { ...body, local_rank: localRank } });
    if (reply !== null) write(socket, { ...reply, type, client_id: clientId });
  };
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    const decoder = createFrameDecoder();
    socket.on("data", (chunk: Buffer) => {
      try {
        for (const payload of decoder.push(chunk)) {
          const message = parseMessage(payload);
          if (message !== null) handle(socket, message);
        }
      } catch (error) {
        input.onError?.(String(error));
        socket.destroy();
      }
    });
    socket.on("close", () => drop(socket));
    socket.on("error", () => drop(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(input.path, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const toRank = (localRank: number) => [...clients].filter(([, client]) => client.localRank === localRank);
  return {
    path: input.path,
    clientRanks: () => new Set([...clients.values()].map((client) => client.localRank)),
    sendToRank(localRank, type, message = {}) {
      const targets = toRank(localRank);
      if (targets.length === 0) return false;
      return targets.every(([id, client]) => write(client.socket, { ...message, type, client_id: id }));
    },
    broadcast(type, message = {}) {
      return [...clients].every(([id, client]) => write(client.socket, { ...message, type, client_id: id }));
    },
    clearClients() {
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      clients.clear();
    },
    dropRank(localRank) {
      for (const [id, client] of toRank(localRank)) {
        clients.delete(id);
        sockets.delete(client.socket);
        client.socket.destroy();
      }
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) =>
        server.close(() => {
          if (existsSync(input.path)) unlinkSync(input.path);
          resolve();
        }),
      );
    },
  };
}
