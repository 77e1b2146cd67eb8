import { type ClusterNode, isNodeHealthy } from "@/server/cluster/types";

/**
 * Where a pod goes (both back ends place pods themselves, see README "Choices"): a healthy node with room
 * for the pod's GPUs, never an avoided one; the preferred node when it fits, else the node with the most
 * free GPUs (spreading pods, so one node failure takes down as few pods as possible). null: nothing fits.
 */
export function pickNode(opts: {
  nodes: readonly ClusterNode[];
  used: ReadonlyMap<string, number>;
  gpus: number;
  avoid: readonly string[];
  prefer: string | null;
}): string | null {
  const free = (node: ClusterNode) => node.gpus - (opts.used.get(node.name) ?? 0);
  const candidates = opts.nodes.filter(
    (node) => isNodeHealthy(node) && !opts.avoid.includes(node.name) && free(node) >= opts.gpus,
  );
  const preferred = candidates.find((node) => node.name === opts.prefer);
  if (preferred) return preferred.name;
  let best: ClusterNode | null = null;
  for (const node of candidates) if (!best || free(node) > free(best)) best = node;
  return best?.name ?? null;
}
