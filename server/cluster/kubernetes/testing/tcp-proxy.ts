import { connect, createServer, type Socket } from "node:net";

/**
 * A TCP proxy in front of the API server that a test can break: `cutAll` closes every open connection
 * (as a load balancer or a network blip would), `stallAll` keeps them open but stops forwarding anything
 * (a silently dead connection). New connections after either work normally, unless `refuse(true)` has
 * the proxy close every new connection at once (the API server unreachable for a while).
 */
export type TcpProxy = {
  port: number;
  open(): number;
  /** Connections accepted since the start. */
  accepted(): number;
  cutAll(): void;
  stallAll(): void;
  refuse(refusing: boolean): void;
  stop(): Promise<void>;
};

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  const stalled: Socket[] = [];
  let refusing = false;
  let accepted = 0;
  const server = createServer((client: Socket) => {
    accepted += 1;
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    const pair = { client, upstream };
    pairs.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    const close = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", close).on("close", close);
    upstream.on("error", close).on("close", close);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("proxy has no port");
  return {
    port: address.port,
    open: () => pairs.size,
    accepted: () => accepted,
    cutAll() {
      for (const { client, upstream } of [...pairs]) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
    },
    stallAll() {
      for (const { client, upstream } of pairs) {
        upstream.unpipe(client);
        client.unpipe(upstream);
        upstream.pause();
        client.pause();
        stalled.push(client, upstream);
      }
      pairs.clear();
    },
    refuse(value) {
      refusing = value;
    },
    async stop() {
      for (const { client, upstream } of pairs) stalled.push(client, upstream);
      for (const socket of stalled) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
