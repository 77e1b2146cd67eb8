import { CoreV1Api, type KubeConfig, type V1ConfigMap } from "@kubernetes/client-node";

/**
 * The node-signal ConfigMap (docs/node-signals.md): `rebound-node-signals` in the operator's namespace,
 * rows under the key `signals.yaml` (or `signals.json`). Read with one GET per poll (a small object, read
 * every few seconds by one operator), not a watch.
 */
export const NODE_SIGNAL_CONFIG_MAP = "rebound-node-signals";
export const NODE_SIGNAL_KEYS = ["signals.yaml", "signals.json"] as const;

export type ConfigMapRead =
  | { kind: "absent" }
  | { kind: "text"; key: string; text: string; resourceVersion: string }
  | { kind: "invalid"; message: string };

const statusCode = (error: unknown): number | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "number" ? code : undefined;
};

/** The one key's text, or what is wrong with the keys. */
function readKeys(configMap: V1ConfigMap, where: string): ConfigMapRead {
  const data = configMap.data ?? {};
  const keys = NODE_SIGNAL_KEYS.filter((key) => data[key] !== undefined);
  if (keys.length !== 1) {
    const problem = keys.length === 0 ? "expected the key" : "give one key of";
    return { kind: "invalid", message: `${where}: ${problem} ${NODE_SIGNAL_KEYS.join(" or ")}` };
  }
  const key = keys[0] as string;
  return {
    kind: "text",
    key: `${where} ${key}`,
    text: data[key] ?? "",
    resourceVersion: configMap.metadata?.resourceVersion ?? "",
  };
}

/** A reader of the ConfigMap: absent (404), its text, or what is wrong with it. Other API errors throw. */
export function nodeSignalConfigMapReader(opts: {
  kubeConfig: KubeConfig;
  namespace: string;
  name?: string;
}): () => Promise<ConfigMapRead> {
  const core = opts.kubeConfig.makeApiClient(CoreV1Api);
  const name = opts.name ?? NODE_SIGNAL_CONFIG_MAP;
  return async () => {
    try {
      const configMap = await core.readNamespacedConfigMap({ name, namespace: opts.namespace });
      return readKeys(configMap, `ConfigMap ${opts.namespace}/${name}`);
    } catch (error) {
      if (statusCode(error) === 404) return { kind: "absent" };
      throw error;
    }
  };
}
