import { type ClusterNode, isNodeHealthy } from "@/server/cluster/types";

/**
 * Where a pod goes (both back ends place pods themselves, see docs/hyperpod-compatibility.md): a healthy node with room
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

/**
 * pickNode's choice from an index of free capacity instead of a scan of every node: healthy nodes grouped
 * by free GPUs (their size less what live pods hold), kept in step by `setNode` (a node's view changed or
 * it went) and `usageChanged` (a pod on it came, went or finished). A pick looks at the fullest-free group
 * first and stops at the first node that fits with no reservation on it, so its cost does not grow with
 * the number of nodes. Ties between equally free nodes go to any of them (pickNode: the first listed).
 */
type PickOptions = {
  used: ReadonlyMap<string, number>;
  gpus: number;
  avoid: readonly string[];
  prefer: string | null;
  instanceType?: string | null;
};

export type CapacityIndex = {
  setNode(name: string, node: ClusterNode | undefined): void;
  usageChanged(name: string): void;
  pick(opts: PickOptions): string | null;
};

type Best = { name: string; free: number } | null;

const beats = (free: number, best: Best) => best === null || free > best.free;
/** No group at or below `level` can give a better pick than `best` (nor fit `gpus`). */
const settled = (level: number, gpus: number, best: Best) =>
  level < gpus || (best !== null && best.free >= level);

export function createCapacityIndex(usedNow: () => ReadonlyMap<string, number>): CapacityIndex {
  const nodes = new Map<string, ClusterNode>();
  const levelOf = new Map<string, number>();
  const levels = new Map<number, Set<string>>();

  const unlevel = (name: string) => {
    const level = levelOf.get(name);
    if (level === undefined) return;
    levelOf.delete(name);
    const members = levels.get(level);
    members?.delete(name);
    if (members?.size === 0) levels.delete(level);
  };
  const relevel = (name: string) => {
    unlevel(name);
    const node = nodes.get(name);
    if (!node || !isNodeHealthy(node)) return;
    const level = node.gpus - (usedNow().get(name) ?? 0);
    levelOf.set(name, level);
    let members = levels.get(level);
    if (!members) {
      members = new Set();
      levels.set(level, members);
    }
    members.add(name);
  };

  /** Free GPUs now, reservations included (never more than the node's group says). */
  const freeOf = (opts: PickOptions, name: string) =>
    (nodes.get(name)?.gpus ?? 0) - (opts.used.get(name) ?? 0);
  const fits = (opts: PickOptions, name: string) => {
    const node = nodes.get(name);
    if (!node || !levelOf.has(name) || opts.avoid.includes(name)) return false;
    return freeOf(opts, name) >= opts.gpus && (!opts.instanceType || node.instanceType === opts.instanceType);
  };
  /** The freest fitting node of one group, better than `best`; stops at one no reservation lowers. */
  const bestOfLevel = (opts: PickOptions, level: number, best: Best): Best => {
    let found = best;
    for (const name of levels.get(level) ?? []) {
      const free = freeOf(opts, name);
      if (!beats(free, found) || !fits(opts, name)) continue;
      found = { name, free };
      if (free === level) break;
    }
    return found;
  };

  return {
    setNode(name, node) {
      if (node) nodes.set(name, node);
      else nodes.delete(name);
      relevel(name);
    },
    usageChanged: relevel,
    pick(opts) {
      if (opts.prefer !== null && fits(opts, opts.prefer)) return opts.prefer;
      let best: Best = null;
      for (const level of [...levels.keys()].sort((a, b) => b - a)) {
        // Reservations only lower a node's free GPUs below its group's: no group further down can beat it.
        if (settled(level, opts.gpus, best)) break;
        best = bestOfLevel(opts, level, best);
      }
      return best?.name ?? null;
    },
  };
}
