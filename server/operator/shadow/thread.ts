import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { RuleBudget } from "@/server/agent/rule-queue";
import type { Logger } from "@/server/log";
import { bundleWorkerSource } from "@/server/worker-bundle";
import { createShadowEngine, type FromShadowEngine, type ToShadowEngine } from "./engine";

/**
 * Where the watcher's messages are judged: the shadow thread (the operator's), or the engine in this thread
 * (unit tests, on a clock they move). Both run engine.ts.
 */
export type ShadowEvaluator = {
  send(message: ToShadowEngine): void;
  onMessage(listener: (message: FromShadowEngine) => void): void;
  stop(): void;
};

/** The engine on this thread, its messages delivered at once (tests). */
export function createInThreadEvaluator(
  opts: { clock?: () => number; budget?: RuleBudget } = {},
): ShadowEvaluator {
  const listeners: Array<(message: FromShadowEngine) => void> = [];
  const engine = createShadowEngine({
    ...opts,
    emit: (message) => {
      for (const listener of listeners) listener(message);
    },
  });
  return {
    send: (message) => engine.receive(message),
    onMessage: (listener) => void listeners.push(listener),
    stop: () => engine.receive({ type: "stop" }),
  };
}

const ENTRY = path.relative(process.cwd(), fileURLToPath(new URL("./thread-main.ts", import.meta.url)));
/** Beside the operator's bundle (scripts/lib/operator-build.ts, one flat folder), the thread is built. */
const PREBUILT = new URL("./shadow-thread.mjs", import.meta.url);
/** A thread that ended is started again at the next message, at most this often. */
const RESTART_MS = 5000;

/**
 * The worker: the bundle's shadow-thread.mjs when the operator runs bundled, else thread-main.ts bundled
 * here at its start (tsx cannot start a .ts worker itself), as the presence thread is.
 */
export async function startShadowWorker(prebuilt: URL = PREBUILT): Promise<Worker> {
  const worker = existsSync(prebuilt)
    ? new Worker(prebuilt)
    : new Worker(await bundleWorkerSource(ENTRY), { eval: true });
  worker.unref();
  return worker;
}

/**
 * The shadow thread, as the watcher talks to it. Until it is up (the bundle is built at start, ~0.2 s) a
 * read is not sent: the watch it belongs to starts at the first read that reaches the thread, as any watch
 * does. The watches sent are kept, so a thread that ended (logged) is started again with them.
 */
export function createShadowThread(deps: { log: Logger; start?: () => Promise<Worker> }): ShadowEvaluator {
  const listeners: Array<(message: FromShadowEngine) => void> = [];
  const watches = new Map<string, ToShadowEngine>();
  let worker: Worker | null = null;
  let starting = false;
  let lastStart = 0;
  let stopped = false;
  let failure: string | null = null;

  const start = () => {
    if (starting || stopped || Date.now() - lastStart < RESTART_MS) return;
    starting = true;
    lastStart = Date.now();
    (deps.start ?? startShadowWorker)().then(
      (started) => {
        starting = false;
        if (stopped) return void started.terminate();
        started.on("message", (message: FromShadowEngine) => {
          for (const listener of listeners) listener(message);
        });
        const ended = (why: string) => {
          if (worker !== started || stopped) return;
          worker = null;
          deps.log.error("shadow thread ended: started again at the next pass", { why });
          // Its last pass will not be answered: the watcher goes on (pass -1 answers whichever waits).
          for (const listener of listeners) listener({ type: "ticked", pass: -1, busy: [] });
        };
        started.on("error", (error) => ended(String(error)));
        started.on("exit", (code) => ended(`exit code ${code}`));
        worker = started;
        for (const watch of watches.values()) started.postMessage(watch);
      },
      (error: unknown) => {
        starting = false;
        // Tried again every RESTART_MS while a shadow is watched; the same failure is logged once.
        if (String(error) === failure) return;
        failure = String(error);
        deps.log.error("shadow thread could not start: shadow rules are not judged", { error: failure });
      },
    );
  };

  /** Without a thread: a tick not sent is answered as skipped, so the watcher's next pass goes on. */
  const unsent = (message: ToShadowEngine) => {
    start();
    if (message.type !== "tick") return;
    for (const listener of listeners) listener({ type: "ticked", pass: message.pass, busy: [] });
  };

  return {
    send(message) {
      if (message.type === "watch") watches.set(message.key, message);
      if (message.type === "forget") watches.delete(message.key);
      if (worker) worker.postMessage(message);
      else unsent(message);
    },
    onMessage: (listener) => void listeners.push(listener),
    stop() {
      stopped = true;
      watches.clear();
      const running = worker;
      worker = null;
      running?.postMessage({ type: "stop" } satisfies ToShadowEngine);
      if (running) setTimeout(() => void running.terminate(), 1000).unref();
    },
  };
}
