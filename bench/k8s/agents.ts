import { type ChildProcess, fork } from "node:child_process";
import { createWriteStream } from "node:fs";
import { fileURLToPath } from "node:url";
import { type ProcWatch, watchProc } from "./proc";

/** Starts bench/k8s/agents-main.ts (the stand-in agents) in a child process and talks to it over IPC. */
export type AgentsProcess = {
  pid: number;
  proc: ProcWatch;
  counts(): Promise<{ count: number; started: number }>;
  /** The pod's stand-in agent goes silent (seam 4 of issue 18); `at`: when, the agents' clock (epoch ms). */
  freeze(pod: { namespace: string; pod: string }): Promise<{ ok: boolean; at: number }>;
  stop(): Promise<void>;
};

const MAIN = fileURLToPath(new URL("./agents-main.ts", import.meta.url));
const READY_TIMEOUT_MS = 60_000;

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once("exit", () => resolve()));

/** One request at a time: replies carry no id, so each is the answer to the request before it. */
function requester(child: ChildProcess) {
  let last: Promise<unknown> = Promise.resolve();
  return <T>(message: object): Promise<T> => {
    const next = last.then(
      () =>
        new Promise<T>((resolve) => {
          child.once("message", (reply) => resolve(reply as T));
          child.send(message);
        }),
    );
    last = next.catch(() => undefined);
    return next;
  };
}

export async function startAgentsProcess(opts: {
  kubeconfigPath: string;
  logFile: string;
  /** Ranks report a new step this often (bench:console's 1 Hz updates); default: static. */
  stepMs?: number;
}): Promise<AgentsProcess> {
  const child = fork(MAIN, [opts.kubeconfigPath, ...(opts.stepMs ? [String(opts.stepMs)] : [])], {
    execArgv: ["--import", import.meta.resolve("tsx")],
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  const log = createWriteStream(opts.logFile);
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  const stop = async () => {
    if (child.connected) child.disconnect();
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited(child);
    clearTimeout(timer);
    process.off("exit", killOnExit);
  };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the stand-in agents did not start")), READY_TIMEOUT_MS);
    child.once("message", () => {
      clearTimeout(timer);
      resolve();
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the stand-in agents exited (${code}); see ${opts.logFile}`));
    });
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  const request = requester(child);
  return {
    pid: child.pid ?? -1,
    proc: watchProc(child.pid ?? -1),
    counts: () => request({ type: "count" }),
    freeze: (pod) => request({ type: "freeze", ...pod }),
    stop,
  };
}
