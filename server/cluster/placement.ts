import { type ClusterNode, isNodeHealthy } from "@/server/cluster/types";

/**
 * Where a pod goes (both back ends place pods themselves, see README "Choices"): a healthy node with room
 * for the pod's GPUs, never an avoided one; the preferred node when it fits, else the node with the most
 * free GPUs (spreading pods, so one node failure takes down as few pods as possible). Under task governance
 * only nodes of the instance type the job was admitted on (its Kueue flavor). null: nothing fits.
 */
export function pickNode(opts: {
  nodes: readonly ClusterNode[];
  used: ReadonlyMap<string, number>;
  gpus: number;
  avoid: readonly string[];
  prefer: string | null;
  instanceType?: string | null;
}): string | null {
  const free = (node: ClusterNode) => node.gpus - (opts.used.get(node.name) ?? 0);
  const { instanceType } = opts;
  const candidates = opts.nodes.filter(
    (node) =>
      isNodeHealthy(node) &&
      !opts.avoid.includes(node.name) &&
      free(node) >= opts.gpus &&
      (!instanceType || node.instanceType === instanceType),
  );
  const preferred = candidates.find((node) => node.name === opts.prefer);
  if (preferred) return preferred.name;
  let best: ClusterNode | null = null;
  for (const node of candidates) if (!best || free(node) > free(best)) best = node;
  return best?.name ?? null;
}

/**
 * GPUs promised to pods that are being created: picked for a node, not yet in the back end's pod list.
 * The operator creates a job's pods several at a time, so each pick must count the others' picks too:
 * `pick` chooses and holds in one synchronous step, and the hold ends once `create` has settled (by then
 * the new pod is in the pod list, or it was not created).
 */
export type Reservations = {
  pick<T>(
    choose: (used: ReadonlyMap<string, number>) => string | null,
    gpus: number,
    create: (node: string) => Promise<T>,
  ): Promise<T | null>;
};

export function createReservations(usedNow: () => ReadonlyMap<string, number>): Reservations {
  const held = new Map<string, number>();
  const adjust = (node: string, gpus: number) => {
    const total = (held.get(node) ?? 0) + gpus;
    if (total === 0) held.delete(node);
    else held.set(node, total);
  };
  return {
    async pick(choose, gpus, create) {
      const used = held.size === 0 ? usedNow() : withHeld(usedNow(), held);
      const node = choose(used);
      if (node === null) return null;
      adjust(node, gpus);
      try {
        return await create(node);
      } finally {
        adjust(node, -gpus);
      }
    },
  };
}

/**
 * `base` plus `held`, read through without copying `base` (a cluster's every node): a pick reads the few
 * nodes it considers, so it need not cost a copy of the whole usage map.
 */
function withHeld(
  base: ReadonlyMap<string, number>,
  held: ReadonlyMap<string, number>,
): ReadonlyMap<string, number> {
  const sum = (node: string) => {
    const mine = held.get(node);
    return mine === undefined ? base.get(node) : (base.get(node) ?? 0) + mine;
  };
  const merged = () => {
    const all = new Map(base);
    for (const node of held.keys()) all.set(node, sum(node) ?? 0);
    return all;
  };
  return {
    get: sum,
    has: (node) => held.has(node) || base.has(node),
    get size() {
      return merged().size;
    },
    forEach: (callback, thisArg) => merged().forEach(callback, thisArg),
    entries: () => merged().entries(),
    keys: () => merged().keys(),
    values: () => merged().values(),
    [Symbol.iterator]: () => merged()[Symbol.iterator](),
  };
}
