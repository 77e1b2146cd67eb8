import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, openSync } from "node:fs";
import path from "node:path";
import { CoreV1Api, type KubeConfig, type V1Pod } from "@kubernetes/client-node";
import { containerArgv, containerEnv, localAgentCommand } from "@/server/cluster/local/agent-command";
import { hostEnvironment } from "@/server/cluster/local/host-env";
import { killTree } from "@/server/cluster/local/process-tree";
import { findFreePort } from "@/server/http/free-port";
import type { Logger } from "@/server/log";
import { createInformer, type KubeObject, objectKey } from "../informer";
import { ANNOTATION_AGENT_URL, LABEL_JOB } from "../objects";
import { annotateAgentUrl, isBound, isGone } from "./kubelet";

/**
 * What a kubelet would do for our tests: KWOK simulates pods' lifecycles but runs no containers, so for
 * every job pod bound to a node this starts the real agent (the pod's own container command, as the local
 * back end does) as a local process and annotates the pod with the agent's address. Deleting the pod kills
 * the process tree. Used by the kubernetes integration tests only.
 */
/** How often every pod's agent is checked against its pod, events aside. */
const RESYNC_MS = 500;

export type PodAgents = {
  /** The agent process of a pod, when running. */
  pidOf(namespace: string, pod: string): number | null;
  started(): number;
  stop(): void;
};

export async function startPodAgents(opts: {
  kubeConfig: KubeConfig;
  repoRoot: string;
  dataDir: string;
  log: Logger;
  env?: Record<string, string>;
}): Promise<PodAgents> {
  const core = opts.kubeConfig.makeApiClient(CoreV1Api);
  const running = new Map<string, { uid: string; child: ChildProcess; url: string }>();
  let count = 0;
  let stopped = false;

  const kill = (key: string) => {
    const entry = running.get(key);
    if (!entry) return;
    running.delete(key);
    if (entry.child.pid !== undefined) killTree(entry.child.pid, "SIGKILL");
  };

  /** Starts the agent the pod's container command names; null when it names none. */
  const spawnAgent = (pod: V1Pod, port: number): ChildProcess | null => {
    const podDir = path.join(opts.dataDir, pod.metadata?.namespace ?? "", pod.metadata?.name ?? "");
    mkdirSync(podDir, { recursive: true });
    const containers = pod.spec?.containers ?? [];
    const built = localAgentCommand({
      argv: containerArgv(containers),
      agentBin: path.join(opts.repoRoot, "bin/rebound-agent.mjs"),
      port,
      logDir: path.join(podDir, "logs"),
    });
    if (!built.ok) {
      opts.log.warn("pod runs no agent; not started", { pod: pod.metadata?.name, reason: built.reason });
      return null;
    }
    const log = openSync(path.join(podDir, "agent.log"), "a");
    return spawn(built.command.command, built.command.args, {
      cwd: opts.repoRoot,
      detached: true,
      stdio: ["ignore", log, log],
      env: {
        ...hostEnvironment(),
        ...containerEnv(containers),
        ...opts.env,
        REBOUND_CHECKPOINT_DIR: path.join(
          opts.dataDir,
          pod.metadata?.namespace ?? "",
          pod.metadata?.labels?.[LABEL_JOB] ?? "",
          "checkpoints",
        ),
        REBOUND_POD_NAME: pod.metadata?.name ?? "",
        REBOUND_NODE_NAME: pod.spec?.nodeName ?? "",
      },
    });
  };

  /** Pods that named no agent: not started again on every sweep. */
  const noAgent = new Set<string>();

  /**
   * Brings one pod name's agent in line with the pod the informer holds now, as a kubelet's pod sync does:
   * no live bound pod, no agent; an agent of an earlier pod of that name is stopped; a bound pod gets its
   * agent and an agent-URL annotation naming it. Reading the pod afresh on every pass (rather than acting on
   * one event) is what makes a pod replaced under the same name mid-start come right: the next pass sees the
   * new pod.
   */
  const syncPod = async (key: string) => {
    const pod = informer.get(key);
    if (!pod || isGone("MODIFIED", pod) || !isBound(pod)) return kill(key);
    const uid = pod.metadata?.uid ?? "";
    const entry = running.get(key)?.uid === uid ? running.get(key) : await startAgent(key, pod);
    if (!entry || pod.metadata?.annotations?.[ANNOTATION_AGENT_URL] === entry.url) return;
    // A pod replaced meanwhile refuses the write (its uid differs): the next pass serves the new pod.
    await annotateAgentUrl(core, pod, entry.url, () => stopped || informer.get(key)?.metadata?.uid !== uid);
  };

  /** Stops an earlier pod's agent under this name and starts this pod's; null when it runs none. */
  const startAgent = async (key: string, pod: V1Pod) => {
    kill(key);
    const uid = pod.metadata?.uid ?? "";
    if (noAgent.has(uid)) return null;
    const port = await findFreePort();
    if (stopped || informer.get(key)?.metadata?.uid !== uid) return null;
    const child = spawnAgent(pod, port);
    if (!child) {
      noAgent.add(uid);
      return null;
    }
    const entry = { uid, child, url: `http://127.0.0.1:${port}` };
    running.set(key, entry);
    count += 1;
    // An agent that exits is started again by the next pass, on a new port: two test files' stand-ins
    // (separate processes) can be handed one free port, and the agent that binds second exits at once.
    child.on("exit", (code, signal) => {
      if (running.get(key) !== entry) return;
      running.delete(key);
      opts.log.warn("a pod's agent exited; starting it again", { pod: key, code, signal });
    });
    return entry;
  };

  /** One sync at a time per pod name; a request during one runs one more pass after it. */
  const syncing = new Map<string, { again: boolean }>();
  const schedule = (key: string) => {
    if (stopped) return;
    const inFlight = syncing.get(key);
    if (inFlight) {
      inFlight.again = true;
      return;
    }
    const state = { again: false };
    syncing.set(key, state);
    const pass = (): Promise<void> =>
      syncPod(key)
        .catch((error: unknown) =>
          opts.log.warn("could not sync a pod's agent", { pod: key, error: String(error) }),
        )
        .then(() => {
          if (!state.again || stopped) return;
          state.again = false;
          return pass();
        });
    void pass().finally(() => syncing.delete(key));
  };

  /** Every pod name known either way: what the informer holds and what runs. */
  const scheduleAll = () => {
    const keys = new Set([...informer.list().map((pod) => objectKey(pod)), ...running.keys()]);
    for (const key of keys) schedule(key);
  };

  const informer = createInformer<V1Pod & KubeObject>({
    name: "pod-agents",
    kubeConfig: opts.kubeConfig,
    log: opts.log,
    watchPath: "/api/v1/pods",
    query: { labelSelector: LABEL_JOB },
    list: () => core.listPodForAllNamespaces({ labelSelector: LABEL_JOB }) as never,
    onEvent: (type, pod) => (type === "RELISTED" || !pod ? scheduleAll() : schedule(objectKey(pod))),
  });
  await informer.start();
  scheduleAll();
  // A kubelet also syncs every pod now and then, not only on events: a write refused or lost on the way is
  // tried again here.
  const resync = setInterval(scheduleAll, RESYNC_MS);
  resync.unref();

  return {
    pidOf: (namespace, pod) => running.get(`${namespace}/${pod}`)?.child.pid ?? null,
    started: () => count,
    stop() {
      stopped = true;
      clearInterval(resync);
      informer.stop();
      for (const key of [...running.keys()]) kill(key);
    },
  };
}
