import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { createInterface } from "node:readline";
import { parse, stringify } from "yaml";
import { installKueueCrds, KUEUE_BINARY, prepareCerts } from "./kueue";
import type { KubeTarget } from "./kueue-http";

const READY_TIMEOUT_MS = 90_000;
const STOP_GRACE_MS = 10_000;

type Log = (line: string) => void;

export type KueueProcess = {
  pid: number;
  configPath: string;
  /** http://127.0.0.1:PORT of Kueue's health probes (/healthz, /readyz). */
  healthUrl: string;
  stop(): Promise<void>;
};

export type StartKueueOptions = {
  /** The test cluster (e2e/kube/cluster.ts): Kueue's kubeconfig, and the address, token and CA for the CRDs. */
  cluster: KubeTarget & { kubeconfigPath: string; dataDir: string };
  log?: Log;
  /** Kueue's fair sharing (`fairSharing.enable`), HyperPod's FairShare=Enabled. Default true. */
  fairSharing?: boolean;
};

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The Configuration shipped for clusters (deploy/kueue/); the tests run it with loopback settings over it. */
export const DEPLOYED_CONFIG = path.resolve(
  import.meta.dirname,
  "../../deploy/kueue/controller_manager_config.yaml",
);

/**
 * Kueue's Configuration for the tests: the deployed one (external framework HyperPodPyTorchJob, jobs without
 * a queue name left alone, fair sharing) with what a test process needs instead: loopback ports, one process
 * (no leader election), no internal cert management (no webhook configurations are installed, so the
 * apiserver never calls Kueue's webhooks; its webhook server still starts, on loopback, with the certificate
 * given), no visibility API server.
 */
export async function kueueConfiguration(opts: {
  webhookPort: number;
  healthPort: number;
  metricsPort: number;
  certDir: string;
  fairSharing: boolean;
}): Promise<Record<string, unknown>> {
  const deployed = parse(await readFile(DEPLOYED_CONFIG, "utf8")) as Record<string, unknown>;
  return {
    ...deployed,
    leaderElection: { leaderElect: false },
    internalCertManagement: { enable: false },
    health: { healthProbeBindAddress: `127.0.0.1:${opts.healthPort}` },
    metrics: { bindAddress: `127.0.0.1:${opts.metricsPort}` },
    webhook: { host: "127.0.0.1", port: opts.webhookPort, certDir: opts.certDir },
    fairSharing: { ...(deployed.fairSharing as object), enable: opts.fairSharing },
    featureGates: { VisibilityOnDemand: false },
  };
}

const isExited = (child: ChildProcess): boolean => child.exitCode !== null || child.signalCode !== null;

const isReady = (healthUrl: string): Promise<boolean> =>
  fetch(`${healthUrl}/readyz`).then(
    (res) => res.ok,
    () => false,
  );

function waitReady(child: ChildProcess, healthUrl: string, tail: string[]): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const fail = (why: string) =>
      reject(new Error(`Kueue ${why}; last lines of its log:\n${tail.join("\n")}`));
    child.once("exit", (code, signal) => fail(`exited before it was ready (${signal ?? code})`));
    const probe = async () => {
      if (isExited(child)) return;
      if (await isReady(healthUrl)) resolve();
      else if (Date.now() > deadline) fail(`was not ready within ${READY_TIMEOUT_MS / 1000} s`);
      else setTimeout(probe, 200);
    };
    void probe();
  });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || isExited(child)) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/**
 * Installs Kueue's CRDs into the test cluster and runs Kueue's manager (built by buildKueue) against it, as a
 * process on loopback; resolves once its /readyz answers. The process gets its own group; stop() (or this
 * process ending: Kueue runs under a shell that ends it when its stdin, a pipe from here, closes) ends it.
 */
export async function startKueue(opts: StartKueueOptions): Promise<KueueProcess> {
  const log = opts.log ?? (() => {});
  await installKueueCrds(opts.cluster);
  const dir = path.join(opts.cluster.dataDir, "kueue");
  const certDir = path.join(dir, "certs");
  await mkdir(dir, { recursive: true });
  await prepareCerts(opts.cluster, certDir);
  const [webhookPort, healthPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
  const configPath = path.join(dir, "config.yaml");
  const config = await kueueConfiguration({
    webhookPort,
    healthPort,
    metricsPort,
    certDir,
    fairSharing: opts.fairSharing ?? true,
  });
  await writeFile(configPath, stringify(config));
  const args = [`--config=${configPath}`, `--kubeconfig=${opts.cluster.kubeconfigPath}`, "--zap-log-level=2"];
  // A reader of the pipe from this process ends Kueue when the pipe closes (stop(), or this process dying);
  // the shell itself waits for Kueue, so it exits when Kueue does. (An asynchronous list's stdin is /dev/null,
  // hence the pipe on fd 3.)
  const script =
    'exec 3<&0; "$0" "$@" </dev/null 3<&- & pid=$!; (read -r _ <&3; kill "$pid" 2>/dev/null) & wait "$pid"';
  const child = spawn("sh", ["-c", script, KUEUE_BINARY, ...args], {
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const tail: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    createInterface({ input: stream }).on("line", (line) => {
      tail.push(line);
      if (tail.length > 40) tail.shift();
      log(line);
    });
  }
  const healthUrl = `http://127.0.0.1:${healthPort}`;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    child.stdin?.end();
    killGroup(child, "SIGTERM");
    const timer = setTimeout(() => killGroup(child, "SIGKILL"), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitReady(child, healthUrl, tail);
  } catch (error) {
    await stop();
    throw error;
  }
  let stopping: Promise<void> | undefined;
  return {
    pid: child.pid ?? -1,
    configPath,
    healthUrl,
    stop: () => {
      stopping ??= stop();
      return stopping;
    },
  };
}
