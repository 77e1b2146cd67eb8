import type { ClientRequest } from "node:http";
import { type AgentOptions, Agent as HttpsAgent } from "node:https";
import type { Duplex } from "node:stream";
import { type Cluster, KubeConfig } from "@kubernetes/client-node";

/**
 * Credentials for the API server: the given kubeconfig file, else the usual rules (KUBECONFIG, then
 * ~/.kube/config, then the pod's in-cluster service account).
 */
export function loadKubeConfig(file?: string): KubeConfig {
  const config = reuseConnections(new KubeConfig());
  if (file) config.loadFromFile(file);
  else config.loadFromDefault();
  if (!config.getCurrentCluster()) {
    throw new Error(
      file
        ? `kubeconfig ${file} names no current cluster`
        : "no Kubernetes credentials found: set REBOUND_KUBECONFIG or KUBECONFIG, or run in a cluster",
    );
  }
  return config;
}

/**
 * An idle connection is closed after this long, before the apiserver closes it (its idle timeout is 90 s),
 * so a call does not go out on a connection being closed. (Only idle sockets: Node's agent leaves a socket
 * with a request on it, such as a quiet watch, alone.) No limit on sockets per server, so requests are
 * never queued behind one another on a socket (where node-fetch 2 misreads chunked answers, #1767).
 */
const IDLE_SOCKET_MS = 60_000;

/**
 * How long a request sent on a reused connection may wait for the answer's headers before the connection is
 * dropped and the request fails (the caller retries on a new one). A kept-alive connection can die silently
 * (a NAT or load balancer forgets it, a proxy stops forwarding): nothing tells the client, and a request sent
 * on it would wait forever; an informer whose list or watch waits so never sees a change again. The
 * apiserver answers within its own request timeout (60 s by default), and a watch's headers come at once.
 */
const REUSED_ANSWER_MS = 60_000;

/** A keep-alive agent that fails a request on a reused connection when no answer starts in time. */
class GuardedAgent extends HttpsAgent {
  constructor(
    options: AgentOptions,
    private readonly answerMs: number,
  ) {
    super(options);
  }

  override reuseSocket(socket: Duplex, request: ClientRequest): void {
    super.reuseSocket(socket, request);
    const timer = setTimeout(() => {
      request.destroy(
        new Error(`no answer from the API server within ${this.answerMs} ms on a reused connection`),
      );
    }, this.answerMs);
    timer.unref();
    request.once("response", () => clearTimeout(timer));
    request.once("close", () => clearTimeout(timer));
  }
}
type AgentFactory = (cluster: Cluster | null, options: AgentOptions) => unknown;

/** The TLS options as one string (certificates and keys as base64), to tell a changed set from the same. */
const optionsKey = (options: AgentOptions): string =>
  Object.entries(options)
    .filter(([, value]) => value !== undefined)
    .map(
      ([name, value]) =>
        `${name}=${Buffer.isBuffer(value) ? value.toString("base64") : JSON.stringify(value)}`,
    )
    .join(";");

/**
 * Makes the API calls made with `config` reuse their TLS connections. @kubernetes/client-node 1.4 builds a
 * new https.Agent for every request (upstream issue #2893, fixed in 2.x, which needs Node 22), so every
 * call paid a TCP and TLS handshake with the apiserver. This keeps one keep-alive agent per API server and
 * set of TLS options (a rotated client certificate gets a new one, and the old one is closed). It replaces
 * the library's private `createAgent`; a test counts the connections, so a library that stops calling it
 * is noticed. A request on a reused connection that gets no answer fails after `answerMs` (REUSED_ANSWER_MS).
 * Proxied and plain-http clusters keep the library's own agents.
 */
export function reuseConnections(config: KubeConfig, opts: { answerMs?: number } = {}): KubeConfig {
  const target = config as unknown as { createAgent: AgentFactory };
  const original = target.createAgent.bind(config);
  const agents = new Map<string, { options: string; agent: HttpsAgent }>();
  target.createAgent = (cluster, options) => {
    if (!cluster?.server.startsWith("https:") || cluster.proxyUrl) return original(cluster, options);
    const key = optionsKey(options);
    const held = agents.get(cluster.server);
    if (held?.options === key) return held.agent;
    held?.agent.destroy();
    const agent = new GuardedAgent(
      { ...options, keepAlive: true, timeout: IDLE_SOCKET_MS },
      opts.answerMs ?? REUSED_ANSWER_MS,
    );
    agents.set(cluster.server, { options: key, agent });
    return agent;
  };
  return config;
}
