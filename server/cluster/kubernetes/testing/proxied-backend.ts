import { createLogger } from "@/server/log";
import { createKubernetesBackend, type KubernetesBackend } from "../backend";
import { type KubeEnv, startKubeEnv, viaProxy } from "./kube-env";
import { startTcpProxy, type TcpProxy } from "./tcp-proxy";

/**
 * A test cluster and a console-mode back end that reaches its API server through a TCP proxy the test
 * can break (cut, stall, refuse), for the informer tests.
 */
export type ProxiedBackend = {
  env: KubeEnv;
  proxy: TcpProxy;
  backend: KubernetesBackend;
  stop(): Promise<void>;
};

export async function startProxiedBackend(opts: {
  namespaces: string[];
  /** How long a silent watch is trusted before it is replaced. */
  stallMs: number;
  apiserverArgs?: string[];
}): Promise<ProxiedBackend> {
  const log = createLogger({ service: "informer-it" });
  const env = await startKubeEnv({
    nodes: ["kwok-a"],
    gpusPerNode: 8,
    namespaces: opts.namespaces,
    apiserverArgs: opts.apiserverArgs,
  });
  const server = new URL(env.cluster.server);
  const proxy = await startTcpProxy({ host: server.hostname, port: Number(server.port) });
  const backend = await createKubernetesBackend({
    kubeConfig: viaProxy(env.kubeConfig, proxy.port),
    log: { ...log, info: () => undefined, warn: () => undefined },
    mode: "console",
    informers: { watchTimeoutSeconds: 300, stallMs: opts.stallMs },
  });
  await backend.start();
  return {
    env,
    proxy,
    backend,
    async stop() {
      await backend.stop();
      await proxy.stop();
      await env.stop();
    },
  };
}
