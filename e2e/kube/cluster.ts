/**
 * Builds and starts the Kubernetes test environment: a real kube-apiserver with an embedded etcd and KWOK,
 * all in one Go process on loopback (main.go and README.md beside this file).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { buildHelm } from "./helm";
import { buildKueue } from "./kueue";

const KUBE_DIR = import.meta.dirname;
const ROOT = path.resolve(KUBE_DIR, "../..");
const BINARY = path.join(ROOT, ".data/kube/bin/rebound-kube");
const STAMP = `${BINARY}.source-hash`;
const READY_MARKER = "REBOUND_KUBE_READY ";
const READY_TIMEOUT_MS = 90_000;
const STOP_GRACE_MS = 15_000;
const TAIL_LINES = 40;

export type KubeTestCluster = {
  kubeconfigPath: string;
  /** https://127.0.0.1:PORT */
  server: string;
  /** Bearer token of rebound-admin, in group system:masters. */
  adminToken: string;
  /** PEM file of the CA that signed the apiserver's certificate (also inside the kubeconfig). */
  caFile: string;
  dataDir: string;
  pid: number;
  stop(): Promise<void>;
};

/** An extra user for the static token file, for least-privilege (RBAC) tests. */
export type KubeTestToken = { token: string; user: string; groups?: string[] };

type Log = (line: string) => void;

/** A hash of the Go sources and flags, so an unchanged checkout skips `go build` (and does not need Go). */
async function sourceHash(flags: string): Promise<string> {
  const names = (await readdir(KUBE_DIR)).filter((name) => name.endsWith(".go"));
  const hash = createHash("sha256").update(flags);
  for (const name of [...names.sort(), "go.mod", "go.sum"]) {
    hash.update(name);
    hash.update(await readFile(path.join(KUBE_DIR, name)));
  }
  return hash.digest("hex");
}

/** Runs a command in e2e/kube, sending each output line to log; rejects with the output's tail. */
function runGo(args: string[], log: Log): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("go", args, { cwd: KUBE_DIR, stdio: ["ignore", "pipe", "pipe"] });
    const tail = collectLines(child, log);
    child.on("error", (error: NodeJS.ErrnoException) => {
      reject(
        error.code === "ENOENT"
          ? new Error("`go` is not installed: the Kubernetes test cluster (e2e/kube) needs Go 1.26 or later")
          : error,
      );
    });
    child.on("exit", (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`go ${args.join(" ")} failed (${signal ?? code}):\n${tail.join("\n")}`));
    });
  });
}

/**
 * Linker flags: no symbol tables (a third smaller, links twice as fast), and the Kubernetes version from
 * go.mod for /version, which `go build` alone leaves at v0.0.0-master.
 */
async function ldflags(): Promise<string> {
  const goMod = await readFile(path.join(KUBE_DIR, "go.mod"), "utf8");
  const match = /^\s*k8s\.io\/kubernetes (v(\d+)\.(\d+)\.\d+)\s*$/m.exec(goMod);
  if (!match) throw new Error("e2e/kube/go.mod does not require k8s.io/kubernetes");
  const [, gitVersion, major, minor] = match;
  const pkg = "k8s.io/component-base/version";
  return `-s -w -X ${pkg}.gitVersion=${gitVersion} -X ${pkg}.gitMajor=${major} -X ${pkg}.gitMinor=${minor}`;
}

/**
 * Builds .data/kube/bin/rebound-kube unless it exists and was built from the current sources. The first
 * build compiles the apiserver (many minutes on a small machine); later ones come from Go's build cache.
 */
export async function buildKubeTestCluster(opts: { log?: Log } = {}): Promise<string> {
  const log = opts.log ?? (() => {});
  await buildKueue({ log }); // the Kueue controller (kueue.ts), at its pinned version; skipped when built
  await buildHelm({ log }); // helm (helm.ts), for the chart's tests (deploy/chart); skipped when built
  const flags = await ldflags();
  const wanted = await sourceHash(flags);
  if (existsSync(BINARY) && existsSync(STAMP) && (await readFile(STAMP, "utf8")) === wanted) return BINARY;
  log("building the Kubernetes test cluster (e2e/kube); the first build takes several minutes…");
  await mkdir(path.dirname(BINARY), { recursive: true });
  // Build beside the binary, then rename: a concurrent reader never sees half a file.
  const partial = `${BINARY}.${process.pid}.tmp`;
  await runGo(["build", "-buildvcs=false", `-ldflags=${flags}`, "-o", partial, "./"], log);
  await rename(partial, BINARY);
  await writeFile(STAMP, wanted);
  return BINARY;
}

/** Sends each line of the child's stdout and stderr to log, and keeps the last lines of stderr. */
function collectLines(child: ChildProcess, log: Log, onStdout?: (line: string) => void): string[] {
  const tail: string[] = [];
  if (child.stdout) {
    createInterface({ input: child.stdout }).on("line", (line) => {
      onStdout?.(line);
      log(line);
    });
  }
  if (child.stderr) {
    createInterface({ input: child.stderr }).on("line", (line) => {
      tail.push(line);
      if (tail.length > TAIL_LINES) tail.shift();
      log(line);
    });
  }
  return tail;
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is already gone
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/** Resolves with the READY line's payload; rejects when the process exits first or the timeout passes. */
function waitForReady(child: ChildProcess, log: Log): Promise<{ kubeconfig: string; server: string }> {
  return new Promise((resolve, reject) => {
    const tail = collectLines(child, log, (line) => {
      if (!line.startsWith(READY_MARKER)) return;
      clearTimeout(timer);
      const ready: unknown = JSON.parse(line.slice(READY_MARKER.length));
      const { kubeconfig, server } = (ready ?? {}) as Record<string, unknown>;
      if (typeof kubeconfig === "string" && typeof server === "string") resolve({ kubeconfig, server });
      else reject(new Error(`rebound-kube printed a malformed ready line: ${line}`));
    });
    const fail = (why: string) => {
      clearTimeout(timer);
      reject(new Error(`rebound-kube ${why}; last lines of its stderr:\n${tail.join("\n")}`));
    };
    const timer = setTimeout(
      () => fail(`was not ready within ${READY_TIMEOUT_MS / 1000} s`),
      READY_TIMEOUT_MS,
    );
    child.once("error", (error) =>
      fail(`could not start (${error.message}); was it built by buildKubeTestCluster?`),
    );
    child.once("exit", (code, signal) => fail(`exited before it was ready (${signal ?? code})`));
  });
}

/**
 * Starts the cluster built by buildKubeTestCluster, with its etcd data, certificates and tokens in dataDir,
 * and resolves once the apiserver is ready and KWOK runs. The process gets its own process group; stop()
 * (or this process exiting) ends it.
 */
export async function startKubeTestCluster(opts: {
  dataDir: string;
  log?: Log;
  extraTokens?: KubeTestToken[];
  /** Extra kube-apiserver flags, e.g. `--audit-log-path=…` (bench:k8s counts the operator's requests). */
  apiserverArgs?: string[];
}): Promise<KubeTestCluster> {
  const log = opts.log ?? (() => {});
  const dataDir = path.resolve(opts.dataDir);
  await mkdir(dataDir, { recursive: true });
  const adminToken = randomBytes(24).toString("hex");
  const args = ["--data-dir", dataDir, "--admin-token", adminToken, "--exit-with-parent"];
  for (const t of opts.extraTokens ?? []) {
    args.push("--extra-token", `${t.token},${t.user},${t.user},"${(t.groups ?? []).join(",")}"`);
  }
  for (const flag of opts.apiserverArgs ?? []) args.push(`--apiserver-arg=${flag}`);
  const child = spawn(BINARY, args, { detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const killOnExit = () => killGroup(child, "SIGKILL");
  process.once("exit", killOnExit);

  const ready = await waitForReady(child, log).catch(async (error: unknown) => {
    killGroup(child, "SIGKILL");
    await exited(child);
    process.off("exit", killOnExit);
    throw error;
  });

  let stopping: Promise<void> | undefined;
  const stop = async () => {
    killGroup(child, "SIGTERM");
    const timer = setTimeout(() => killGroup(child, "SIGKILL"), STOP_GRACE_MS);
    await exited(child);
    clearTimeout(timer);
    process.off("exit", killOnExit);
  };
  return {
    kubeconfigPath: ready.kubeconfig,
    server: ready.server,
    adminToken,
    caFile: path.join(dataDir, "pki/ca.crt"),
    dataDir,
    pid: child.pid ?? -1,
    stop: () => {
      stopping ??= stop();
      return stopping;
    },
  };
}
