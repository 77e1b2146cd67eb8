import type { KubeConfig } from "@kubernetes/client-node";
import type { NodeSignalSource } from "@/server/cluster/kubernetes/backend";
import type { ConfigMapRead } from "@/server/cluster/kubernetes/node-signal-config-map";
import type { Db } from "@/server/db/client";
import { DEFAULT_NODE_SIGNALS } from "@/server/domain/node-health/default-signals";
import type { NodeSignalTable } from "@/server/domain/node-health/signal-table.schema";
import { overlayNodeSignals, parseNodeSignalText } from "@/server/domain/node-health/table";
import type { Logger } from "@/server/log";
import { loadNodeSignalTable } from "@/server/store/node-signals/queries";

/**
 * The node-signal table the operator judges nodes by, kept current: the table stored in Postgres (changed
 * by cluster admins in the console) and, on Kubernetes, the rows of the `rebound-node-signals` ConfigMap
 * over it (a ConfigMap row replaces the stored row of the same id; a new id is added). Both are read every
 * `intervalMs` (default 3 s, as the Kueue sync polls its Postgres config); listeners hear of each change.
 * A bad ConfigMap is logged once, as an error naming the row and field, and its last good rows stay in
 * force; Postgres unreachable keeps the last table read.
 */
export type NodeSignalFeed = NodeSignalSource & {
  /** Read both now (after a change; tests). */
  refresh(): Promise<void>;
  stop(): void;
};

export const NODE_SIGNAL_POLL_MS = 3_000;

type Stored = { version: number; table: NodeSignalTable };

type Overlay = { rows: unknown; from: string };

/** What the ConfigMap says over `base`: nothing (absent), rows that apply, or why it is refused. */
function judgeConfigMap(
  read: ConfigMapRead,
  base: NodeSignalTable,
): { kind: "absent" } | { kind: "good"; overlay: Overlay } | { kind: "bad"; message: string } {
  if (read.kind === "absent") return { kind: "absent" };
  if (read.kind === "invalid") return { kind: "bad", message: read.message };
  const parsed = parseNodeSignalText(read.text);
  const checked = parsed.ok ? overlayNodeSignals(base, parsed.rows) : parsed;
  if (!checked.ok) return { kind: "bad", message: `${read.key}: ${checked.message}` };
  return { kind: "good", overlay: { rows: parsed.ok ? parsed.rows : [], from: read.key } };
}

export async function startNodeSignalFeed(opts: {
  load: () => Promise<Stored>;
  readConfigMap?: () => Promise<ConfigMapRead>;
  log: Logger;
  intervalMs?: number;
}): Promise<NodeSignalFeed> {
  const { log } = opts;
  const listeners = new Set<(table: NodeSignalTable) => void>();
  let stored: Stored | null = null;
  let overlay: Overlay | null = null;
  // Until Postgres answers (down at start), the shipped table, HyperPod's label included.
  let table: NodeSignalTable = DEFAULT_NODE_SIGNALS;
  let loaded = false;
  // Each distinct problem is logged once (a poll every few seconds would repeat it), until a good read.
  let reported = "";
  const report = (message: string, error?: unknown) => {
    if (message === reported) return;
    reported = message;
    log.error(message, error === undefined ? {} : { error: String(error) });
  };

  const readStored = async () => {
    try {
      stored = await opts.load();
    } catch (error) {
      report("node-signal table: could not read it from Postgres; keeping the last one read", error);
    }
  };

  const readOverlay = async (base: NodeSignalTable) => {
    if (!opts.readConfigMap) return;
    try {
      const judged = judgeConfigMap(await opts.readConfigMap(), base);
      if (judged.kind === "bad")
        report(`node-signal ConfigMap is not valid, keeping the last good table: ${judged.message}`);
      else overlay = judged.kind === "good" ? judged.overlay : null;
    } catch (error) {
      report("node-signal ConfigMap: could not read it; keeping its last good rows", error);
    }
  };

  const notify = (next: NodeSignalTable) => {
    for (const listener of listeners) listener(next);
  };
  const adopt = (next: Stored, merged: NodeSignalTable) => {
    const same = JSON.stringify(table) === JSON.stringify(merged);
    if (same && loaded) return;
    const first = !loaded;
    loaded = true;
    table = merged;
    reported = "";
    log.info(first ? "node-signal table loaded" : "node-signal table changed", {
      version: next.version,
      configMap: overlay?.from ?? null,
      rows: merged.length,
    });
    if (!same) notify(merged);
  };

  const refresh = async () => {
    await readStored();
    if (!stored) return;
    await readOverlay(stored.table);
    if (!overlay) return adopt(stored, stored.table);
    const merged = overlayNodeSignals(stored.table, overlay.rows);
    if (merged.ok) adopt(stored, merged.table);
    else report(`node-signal ConfigMap no longer applies to the stored table: ${merged.message}`);
  };

  await refresh();
  let running: Promise<void> = Promise.resolve();
  const queue = () => {
    running = running.then(refresh);
    return running;
  };
  const timer = setInterval(() => void queue(), opts.intervalMs ?? NODE_SIGNAL_POLL_MS);
  timer.unref();
  return {
    current: () => table,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    refresh: queue,
    stop: () => clearInterval(timer),
  };
}

/** The operator's feed on Kubernetes: Postgres, and the ConfigMap in the operator's namespace. */
export async function startOperatorNodeSignals(opts: {
  db: Db;
  kubeConfig: KubeConfig;
  namespace: string;
  log: Logger;
}): Promise<NodeSignalFeed> {
  const { nodeSignalConfigMapReader } = await import("@/server/cluster/kubernetes/node-signal-config-map");
  return startNodeSignalFeed({
    load: () => loadNodeSignalTable(opts.db),
    readConfigMap: nodeSignalConfigMapReader({ kubeConfig: opts.kubeConfig, namespace: opts.namespace }),
    log: opts.log.child({ component: "node-signals" }),
  });
}

/** The operator's feed on the local back end: the table stored in Postgres only. */
export function startStoredNodeSignals(opts: { db: Db; log: Logger }): Promise<NodeSignalFeed> {
  return startNodeSignalFeed({
    load: () => loadNodeSignalTable(opts.db),
    log: opts.log.child({ component: "node-signals" }),
  });
}
