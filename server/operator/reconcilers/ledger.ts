/**
 * Effects this operator process has carried out (an event sent, a metric observed), by key: a reconcile
 * retried after a failure skips what the failed attempt already did. In memory only, like the metrics it
 * guards: a restarted operator starts with an empty ledger and a fresh registry. Oldest keys go past `limit`.
 */
export type Ledger = {
  has(key: string): boolean;
  add(key: string): void;
};

export function createLedger(limit = 10_000): Ledger {
  const keys = new Set<string>();
  return {
    has: (key) => keys.has(key),
    add(key) {
      keys.add(key);
      if (keys.size <= limit) return;
      const oldest = keys.values().next();
      if (!oldest.done) keys.delete(oldest.value);
    },
  };
}
