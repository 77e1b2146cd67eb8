import { readFileSync } from "node:fs";
import path from "node:path";
import {
  type KubeConfig,
  type KubernetesObject,
  KubernetesObjectApi,
  loadAllYaml,
  PatchStrategy,
} from "@kubernetes/client-node";
import { parse } from "yaml";
import { type ClusterMode, detectClusterMode } from "./console-view";

/**
 * `rebound install`: applies deploy/, the Helm chart's output with its default values (deploy/chart/render.ts,
 * `npm run generate:deploy`; docs/helm.md), server-side (field manager "rebound-installer"), but never
 * replaces a HyperPodPyTorchJob CRD it does not own. On a cluster whose CRD is someone else's (AWS's
 * HyperPod training operator) it installs deploy/console-only/ instead: the console, no CRD, no operator.
 * Kustomizations are read by their `resources` lists only (ours use nothing else), so kubectl is not needed.
 */

export const FIELD_MANAGER = "rebound-installer";

export type InstallPlan = { mode: ClusterMode; kustomization: string; objects: KubernetesObject[] };

type Kustomization = { resources?: string[]; [other: string]: unknown };

/** The objects a kustomization directory lists, in order, following nested kustomizations. */
export function kustomizationObjects(dir: string): KubernetesObject[] {
  const kustomization = parse(readFileSync(path.join(dir, "kustomization.yaml"), "utf8")) as Kustomization;
  const unsupported = Object.keys(kustomization).filter(
    (key) => !["apiVersion", "kind", "resources", "namespace"].includes(key),
  );
  if (unsupported.length > 0) {
    throw new Error(
      `${dir}/kustomization.yaml: the installer reads only resources (found ${unsupported.join(", ")})`,
    );
  }
  return (kustomization.resources ?? []).flatMap((entry) => {
    const target = path.resolve(dir, entry);
    if (!entry.endsWith(".yaml") && !entry.endsWith(".yml")) return kustomizationObjects(target);
    return loadAllYaml(readFileSync(target, "utf8")).filter(Boolean) as KubernetesObject[];
  });
}

const crdExists = async (kubeConfig: KubeConfig) =>
  detectClusterMode(kubeConfig).then(
    (mode) => mode,
    (error: { code?: number }) => {
      if (error.code === 404) return null;
      throw error;
    },
  );

export async function planInstall(kubeConfig: KubeConfig, deployDir: string): Promise<InstallPlan> {
  // No CRD yet, or ours: everything. Someone else's CRD: the console only.
  const mode: ClusterMode = (await crdExists(kubeConfig)) ?? "managed";
  const kustomization = mode === "managed" ? deployDir : path.join(deployDir, "console-only");
  return { mode, kustomization, objects: kustomizationObjects(kustomization) };
}

const nameOf = (object: KubernetesObject) =>
  `${object.kind}/${object.metadata?.namespace ? `${object.metadata.namespace}/` : ""}${object.metadata?.name}`;

export async function install(opts: {
  kubeConfig: KubeConfig;
  deployDir: string;
  dryRun?: boolean;
  log: (line: string) => void;
}): Promise<InstallPlan> {
  const plan = await planInstall(opts.kubeConfig, opts.deployDir);
  opts.log(
    plan.mode === "managed"
      ? "installing Rebound: CRD, operator and console"
      : "the HyperPodPyTorchJob CRD belongs to another operator (AWS's HyperPod training operator?): installing the console only, in console-only mode; the CRD is left as it is",
  );
  const api = KubernetesObjectApi.makeApiClient(opts.kubeConfig);
  for (const object of plan.objects) {
    await api.patch(
      object,
      undefined,
      opts.dryRun ? "All" : undefined,
      FIELD_MANAGER,
      true,
      PatchStrategy.ServerSideApply,
    );
    opts.log(`${opts.dryRun ? "would apply" : "applied"} ${nameOf(object)}`);
  }
  return plan;
}
