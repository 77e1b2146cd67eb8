import { type ChildProcess, spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { KubeConfig, type V1Container, type V1EnvVar } from "@kubernetes/client-node";
import type { KubeEnv } from "@/server/cluster/kubernetes/testing/kube-env";
import { hostEnvironment } from "@/server/cluster/local/host-env";

/**
 * Playing the kubelet for one of the chart's containers on the test apiserver (e2e/kube has no kubelet):
 * the container's own command, run on this machine with its environment resolved as the kubelet resolves it
 * (secret, config-map and field references) and authenticated as its pod's ServiceAccount. The chart's
 * operator test (operator.k8s-test.ts) and its console test (e2e/chart-console.ui.spec.ts) use it, so what
 * those containers can do is what the chart gives them.
 */

/** A token and kubeconfig file for one of the chart's ServiceAccounts (what its pod would be given). */
export async function serviceAccountCredentials(
  env: KubeEnv,
  opts: { namespace: string; serviceAccount: string; dir: string },
): Promise<{ token: string; kubeconfig: string }> {
  const request = await env.core.createNamespacedServiceAccountToken({
    name: opts.serviceAccount,
    namespace: opts.namespace,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const cluster = env.kubeConfig.getCurrentCluster();
  const token = request.status?.token;
  if (!cluster || !token) throw new Error(`no token for the ServiceAccount ${opts.serviceAccount}`);
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [cluster],
    users: [{ name: opts.serviceAccount, token }],
    contexts: [{ name: opts.serviceAccount, cluster: cluster.name, user: opts.serviceAccount }],
    currentContext: opts.serviceAccount,
  });
  const kubeconfig = path.join(opts.dir, `${opts.serviceAccount}.kubeconfig`);
  await writeFile(kubeconfig, config.exportConfig());
  return { token, kubeconfig };
}

/** One env entry's value as the kubelet resolves it (secret, config map, the pod's own fields). */
async function resolveEnv(
  env: KubeEnv,
  entry: V1EnvVar,
  pod: { name: string; namespace: string },
): Promise<string | undefined> {
  if (entry.value !== undefined) return entry.value;
  const from = entry.valueFrom;
  if (from?.fieldRef) return from.fieldRef.fieldPath === "metadata.name" ? pod.name : pod.namespace;
  if (from?.secretKeyRef) {
    const ref = from.secretKeyRef;
    const secret = await env.core
      .readNamespacedSecret({ name: ref.name ?? "", namespace: pod.namespace })
      .catch((error) => {
        if (ref.optional) return null;
        throw error;
      });
    const value = secret?.data?.[ref.key];
    return value === undefined ? undefined : Buffer.from(value, "base64").toString("utf8");
  }
  if (from?.configMapKeyRef) {
    const ref = from.configMapKeyRef;
    const map = await env.core
      .readNamespacedConfigMap({ name: ref.name ?? "", namespace: pod.namespace })
      .catch((error) => {
        if (ref.optional) return null;
        throw error;
      });
    return map?.data?.[ref.key];
  }
  throw new Error(`env ${entry.name}: a source this stand-in does not resolve`);
}

/**
 * The container's environment with what only a pod has moved to this machine: `moved` maps a variable to its
 * local value, or a mounted path (a key starting with "/") to a local directory, replaced inside every value.
 */
export async function containerEnv(
  env: KubeEnv,
  container: V1Container,
  pod: { name: string; namespace: string },
  moved: Record<string, string>,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of container.env ?? []) {
    const value = await resolveEnv(env, entry, pod);
    if (value === undefined) continue;
    let local = moved[entry.name] ?? value;
    for (const [from, to] of Object.entries(moved)) if (from.startsWith("/")) local = local.replace(from, to);
    out[entry.name] = local;
  }
  return out;
}

export type RunningContainer = { child: ChildProcess; output: () => string; exited: Promise<number | null> };

/** Starts the container's command (its `node` is this Node) in `cwd`, the image's working directory. */
export function runContainer(opts: {
  container: V1Container;
  env: Record<string, string>;
  cwd: string;
  /** Command-line arguments replaced, as a pod's ports and addresses are moved: [from, to]. */
  replaceArgs?: Array<[string, string]>;
}): RunningContainer {
  const [command, ...args] = [...(opts.container.command ?? []), ...(opts.container.args ?? [])];
  if (command !== "node") throw new Error(`${opts.container.name}: runs ${command}, not node`);
  const local = args.map((arg) => opts.replaceArgs?.find(([from]) => from === arg)?.[1] ?? arg);
  const child = spawn(process.execPath, local, {
    cwd: opts.cwd,
    env: { ...hostEnvironment(), ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const append = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on("data", append);
  child.stderr?.on("data", append);
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}
