import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * `npm run bench:k8s [-- --nodes 256 --gpus-per-node 8 --faults 5 --budget-s 600]`: the Kubernetes back
 * end at scale (bench/k8s/main.ts says what it measures). It runs in a child process of its own session, so
 * that a Ctrl-C cannot kill it half-way through its clean-up: the terminal's signal reaches only this
 * process, which closes the IPC channel; the child then stops the operator, the stand-in agents, the
 * cluster and PostgreSQL, removes its temp dirs and exits. The child does the same if this process dies.
 */
const runner = fileURLToPath(new URL("./k8s/main.ts", import.meta.url));
const child = spawn(
  process.execPath,
  ["--import", import.meta.resolve("tsx"), runner, ...process.argv.slice(2)],
  {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    detached: true,
  },
);
let interrupted = false;
const interrupt = () => {
  interrupted = true;
  if (child.connected) child.disconnect();
};
process.on("SIGINT", interrupt);
process.on("SIGTERM", interrupt);
child.on("exit", (code, signal) => process.exit(interrupted ? 130 : (code ?? (signal ? 1 : 0))));
