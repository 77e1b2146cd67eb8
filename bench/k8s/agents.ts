import { type ChildProcess, fork } from "node:child_process";
import { createWriteStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { standInOwner } from "@/server/cluster/kubernetes/testing/stand-in-partition";
import { type ProcWatch, watchProcs } from "./proc";

/**
 * Starts the stand-in agents (bench/k8s/agents-main.ts) in `processes` child processes, each serving its
 * part of the pods (stand-in-partition.ts), and talks to them over IPC: a pod's freeze or fault goes to the
 * child that owns it, counts are summed, and `proc` samples the children as one (CPU and RSS summed).
 */
export type AgentsProcesses = {
  pids: number[];
  proc: ProcWatch;
  counts(): Promise<{ count: number; started: number }>;
  /** The pod's stand-in agent goes silent (seam 4 of issue 18); `at`: when, the agents' clock (epoch ms). */
  freeze(pod: PodRef): Promise<{ ok: boolean; at: number }>;
  /** The pod's running stand-in agent turns FAULTED; false when it has none running. */
  fault(pod: PodRef): Promise<{ ok: boolean }>;
  /** Rejects when a child exits before stop() (the bench fails with it, as when the operator exits). */
  exited: Promise<never>;
  stop(): Promise<void>;
};

type PodRef = { namespace: string; pod: string };

const MAIN = fileURLToPath(new URL("./agents-main.ts", import.meta.url));
const READY_TIMEOUT_MS = 60_000;
const LOG_TAIL_LINES = 20;

const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

const exitOf = (child: ChildProcess) =>
  hasExited(child) ? Promise.resolve() : new Promise<void>((resolve) => child.once("exit", () => resolve()));

/** The child a pod's requests go to. */
export const childOf = (pod: PodRef, children: number): number =>
  standInOwner({ namespace: pod.namespace, name: pod.pod }, children);

/** The children's counts, as one. */
export const sumCounts = (counts: { count: number; started: number }[]) =>
  counts.reduce((sum, each) => ({ count: sum.count + each.count, started: sum.started + each.started }), {
    count: 0,
    started: 0,
  });

/** `agents.log` for one child, `agents-0.log`, `agents-1.log`, … for several. */
export const childLogFile = (logFile: string, index: number, children: number): string =>
  children === 1 ? logFile : logFile.replace(/(\.log)?$/, `-${index}$1`);

/** The end of a child's log, for the error that reports its exit. */
async function logTail(file: string): Promise<string> {
  const text = (await readFile(file, "utf8").catch(() => "")).trimEnd();
  if (text === "") return "its log is empty";
  return `its last lines:\n${text.split("\n").slice(-LOG_TAIL_LINES).join("\n")}`;
}

type Child = {
  index: number;
  child: ChildProcess;
  logFile: string;
  /** Resolves with why the child ended, once it has (whether or not it was asked to). */
  ended: Promise<string>;
  request<T>(message: object): Promise<T>;
  stop(): Promise<void>;
};

/**
 * One child: requests one at a time (replies carry no id, so each is the answer to the request before it);
 * a request to a child that has exited, or exits before answering, is rejected.
 */
function startChild(input: {
  index: number;
  children: number;
  kubeconfigPath: string;
  logFile: string;
  stepMs?: number;
}): Child {
  const args = [input.kubeconfigPath, String(input.stepMs ?? 0), `${input.index}/${input.children}`];
  const child = fork(MAIN, args, {
    execArgv: ["--import", import.meta.resolve("tsx")],
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    // A session of its own, so a CPU share of its own. Linux's scheduler (autogroup, on by default) shares
    // the CPUs between sessions first: in the bench's session, the stand-ins of 2,048 machines, the operator
    // and the bench had one share between them against the simulated cluster's (e2e/kube/cluster.ts starts
    // it in a session of its own), and the stand-ins' loop waited 240–720 ms a second for a CPU at times
    // ("stand-in loop held", cpuWaitMs). A real cluster runs each on machines, or in cgroups, of its own.
    // The child still ends with the bench: killed on its exit, or when the IPC channel closes.
    detached: true,
  });
  const log = createWriteStream(input.logFile);
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  // A failed send to a child that just exited: its exit is what the bench reports.
  child.on("error", (error) => log.write(`[bench] ${String(error)}\n`));
  const name = `stand-in agents process ${input.index + 1} of ${input.children} (pid ${child.pid ?? "?"})`;
  const ended = new Promise<string>((resolve) => {
    child.once("exit", (code, signal) =>
      resolve(`${name} exited (${signal ?? `code ${code}`}); see ${input.logFile}`),
    );
  });
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  let last: Promise<unknown> = Promise.resolve();
  const request = <T>(message: object): Promise<T> => {
    const next = last.then(
      () =>
        new Promise<T>((resolve, reject) => {
          if (hasExited(child) || !child.connected) return reject(new Error(`${name} is gone`));
          const onExit = () => reject(new Error(`${name} exited before it answered`));
          child.once("exit", onExit);
          child.once("message", (reply) => {
            child.off("exit", onExit);
            resolve(reply as T);
          });
          child.send(message);
        }),
    );
    last = next.catch(() => undefined);
    return next;
  };
  return {
    index: input.index,
    child,
    logFile: input.logFile,
    ended,
    request,
    async stop() {
      if (child.connected) child.disconnect();
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exitOf(child);
      clearTimeout(timer);
      process.off("exit", killOnExit);
    },
  };
}

/** Resolves once the child says it is ready; rejects with its last log lines if it exits first. */
function ready(each: Child): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the stand-in agents (process ${each.index + 1}) did not start`)),
      READY_TIMEOUT_MS,
    );
    each.child.once("message", () => {
      clearTimeout(timer);
      resolve();
    });
    void each.ended.then(async (why) => {
      clearTimeout(timer);
      reject(new Error(`${why}; ${await logTail(each.logFile)}`));
    });
  });
}

export async function startAgentsProcesses(opts: {
  kubeconfigPath: string;
  /** The log of one child; with several, `-0`, `-1`, … before `.log`. */
  logFile: string;
  /** How many child processes share the pods (default 1). */
  processes?: number;
  /** Ranks report a new step this often (bench:console's 1 Hz updates); default: static. */
  stepMs?: number;
}): Promise<AgentsProcesses> {
  const count = opts.processes ?? 1;
  const children = Array.from({ length: count }, (_, index) =>
    startChild({
      index,
      children: count,
      kubeconfigPath: opts.kubeconfigPath,
      logFile: childLogFile(opts.logFile, index, count),
      stepMs: opts.stepMs,
    }),
  );
  let stopping = false;
  const stop = async () => {
    stopping = true;
    await Promise.all(children.map((each) => each.stop()));
  };
  await Promise.all(children.map(ready)).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  const exited = new Promise<never>((_, reject) => {
    for (const each of children)
      void each.ended.then(async (why) => {
        if (!stopping) reject(new Error(`${why}; ${await logTail(each.logFile)}`));
      });
  });
  exited.catch(() => undefined);
  const owner = (pod: PodRef) => children[childOf(pod, count)] as Child;
  return {
    pids: children.map((each) => each.child.pid ?? -1),
    proc: watchProcs(children.map((each) => each.child.pid ?? -1)),
    counts: async () =>
      sumCounts(
        await Promise.all(
          children.map((each) => each.request<{ count: number; started: number }>({ type: "count" })),
        ),
      ),
    freeze: (pod) => owner(pod).request({ type: "freeze", ...pod }),
    fault: (pod) => owner(pod).request({ type: "fault", ...pod }),
    exited,
    stop,
  };
}
