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
import { LABEL_JOB } from "../objects";
import { annotateAgentUrl, isBound, isGone } from "./kubelet";

/**
 * What a kubelet would do for our tests: KWOK simulates pods' lifecycles but runs no containers, so for
 * every job pod bound to a node this starts the real agent (the pod's own container command, as the local
 * back end does) as a local process and annotates the pod with the agent's address. Deleting the pod kills
 * the process tree. Used by the kubernetes integration tests only.
 */
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
  const running = new Map<string, { uid: string; child: ChildProcess }>();
  const launching = new Set<string>();
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

  const launch = async (pod: V1Pod) => {
    const key = objectKey(pod as KubeObject);
    kill(key);
    const port = await findFreePort();
    const child = spawnAgent(pod, port);
    if (!child) return;
    running.set(key, { uid: pod.metadata?.uid ?? "", child });
    count += 1;
    child.on("exit", () => {
      if (running.get(key)?.child === child) running.delete(key);
    });
    if (stopped) return kill(key);
    await annotateAgentUrl(core, pod, `http://127.0.0.1:${port}`, () => stopped).catch((error: unknown) => {
      // Not annotated, the operator would never reach this agent: stop it, so the pod's next event (or the
      // next relist) starts one again rather than finding it "running".
      killIfSame(key, pod.metadata?.uid ?? "");
      throw error;
    });
  };

  /**
   * Kills the agent of this very pod only: a replacement of the same name may already run its own (the old
   * pod's last events can arrive after the new pod's, as after a relist), and it must not be killed.
   */
  const killIfSame = (key: string, uid: string) => {
    if (running.get(key)?.uid === uid) kill(key);
  };

  /** After a relist (the watch could not resume): start what is missing, stop agents whose pod is gone. */
  const resync = () => {
    const listed = new Map(informer.list().map((pod) => [objectKey(pod), pod.metadata?.uid ?? ""]));
    for (const [key, entry] of [...running]) if (listed.get(key) !== entry.uid) kill(key);
    for (const pod of informer.list()) reconcile("ADDED", pod);
  };

  const reconcile = (type: string, pod: V1Pod | null) => {
    if (!pod || stopped) return;
    const key = objectKey(pod as KubeObject);
    if (isGone(type, pod)) return killIfSame(key, pod.metadata?.uid ?? "");
    const uid = pod.metadata?.uid ?? "";
    if (!isBound(pod) || running.get(key)?.uid === uid || launching.has(uid)) return;
    launching.add(uid);
    launch(pod)
      .catch((error: unknown) =>
        opts.log.warn("could not start a pod's agent", { pod: key, error: String(error) }),
      )
      .finally(() => launching.delete(uid));
  };

  const informer = createInformer<V1Pod & KubeObject>({
    name: "pod-agents",
    kubeConfig: opts.kubeConfig,
    log: opts.log,
    watchPath: "/api/v1/pods",
    query: { labelSelector: LABEL_JOB },
    list: () => core.listPodForAllNamespaces({ labelSelector: LABEL_JOB }) as never,
    onEvent: (type, pod) => (type === "RELISTED" ? resync() : reconcile(type, pod)),
  });
  await informer.start(); // its first list resyncs: every bound pod gets its agent

  return {
    pidOf: (namespace, pod) => running.get(`${namespace}/${pod}`)?.child.pid ?? null,
    started: () => count,
    stop() {
      stopped = true;
      informer.stop();
      for (const key of [...running.keys()]) kill(key);
    },
  };
}
