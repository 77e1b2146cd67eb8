/** Undo steps of a bench run, run in reverse at close (bench/k8s/main.ts), each bounded to 30 s. */
export type Lifecycle = {
  /** Registers an undo step; after close() it runs at once. */
  defer(what: string, undo: () => Promise<unknown> | unknown): void;
  close(): Promise<void>;
};

export function createLifecycle(log: (line: string) => void): Lifecycle {
  const undo: [string, () => Promise<unknown> | unknown][] = [];
  let closing: Promise<void> | null = null;
  const runOne = async ([what, fn]: [string, () => Promise<unknown> | unknown]) => {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error("took over 30 s")), 30_000);
    });
    try {
      await Promise.race([Promise.resolve().then(fn), limit]);
    } catch (error) {
      log(`clean-up: ${what}: ${String(error)}`);
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    defer(what, fn) {
      if (closing) void runOne([what, fn]);
      else undo.push([what, fn]);
    },
    close() {
      closing ??= (async () => {
        while (undo.length > 0) await runOne(undo.pop() as [string, () => unknown]);
      })();
      return closing;
    },
  };
}
