import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { buildKubeTestCluster } from "@/e2e/kube/cluster";

/**
 * The Kubernetes test environment of e2e/kube, started with an audit log (every request but KWOK's and the
 * apiserver's own, at level Metadata) and static tokens for the operator and the stand-in agents, so the
 * operator's requests can be counted apart. startKubeTestCluster (e2e/kube/cluster.ts) cannot pass
 * `--apiserver-arg` yet, hence this small launcher of the same binary.
 */
export type BenchUser = { user: string; token: string };

export type AuditedCluster = {
  server: string;
  kubeconfigPath: string;
  caFile: string;
  auditLogPath: string;
  adminToken: string;
  pid: number;
  /** A kubeconfig file for one of the extra users, written into the data dir. */
  kubeconfigFor(user: BenchUser): Promise<string>;
  stop(): Promise<void>;
};

const READY_MARKER = "REBOUND_KUBE_READY ";
const READY_TIMEOUT_MS = 90_000;
const STOP_GRACE_MS = 15_000;

/** Metadata for everything the operator, the agents and the bench do; nothing of KWOK's heartbeats. */
const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["ResponseStarted"]
rules:
  - level: None
    users: ["kwok-controller", "system:apiserver"]
  - level: None
    nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]
  - level: Metadata
`;

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once("exit", () => resolve()));

function waitForReady(
  child: ChildProcess,
  log: (line: string) => void,
): Promise<{ kubeconfig: string; server: string }> {
  const tail: string[] = [];
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      reject(new Error(`rebound-kube ${why}; last lines of its stderr:\n${tail.join("\n")}`));
    };
    const timer = setTimeout(
      () => fail(`was not ready within ${READY_TIMEOUT_MS / 1000} s`),
      READY_TIMEOUT_MS,
    );
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      if (!line.startsWith(READY_MARKER)) return;
      clearTimeout(timer);
      resolve(JSON.parse(line.slice(READY_MARKER.length)));
    });
    createInterface({ input: child.stderr as NodeJS.ReadableStream }).on("line", (line) => {
      tail.push(line);
      if (tail.length > 40) tail.shift();
      log(line);
    });
    child.once("error", (error) => fail(`could not start: ${error.message}`));
    child.once("exit", (code, signal) => fail(`exited before it was ready (${signal ?? code})`));
  });
}

export async function startAuditedCluster(opts: {
  dataDir: string;
  users: BenchUser[];
  log: (line: string) => void;
}): Promise<AuditedCluster> {
  const binary = await buildKubeTestCluster({ log: opts.log });
  const policyPath = path.join(opts.dataDir, "audit-policy.yaml");
  const auditLogPath = path.join(opts.dataDir, "audit.log");
  await mkdir(opts.dataDir, { recursive: true });
  await writeFile(policyPath, AUDIT_POLICY);
  const adminToken = randomBytes(24).toString("hex");
  const args = ["--data-dir", opts.dataDir, "--admin-token", adminToken, "--exit-with-parent"];
  for (const { user, token } of opts.users)
    args.push("--extra-token", `${token},${user},${user},"system:masters"`);
  args.push(
    `--apiserver-arg=--audit-policy-file=${policyPath}`,
    `--apiserver-arg=--audit-log-path=${auditLogPath}`,
  );
  const child = spawn(binary, args, { detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const killOnExit = () => killGroup(child, "SIGKILL");
  process.once("exit", killOnExit);
  const ready = await waitForReady(child, opts.log).catch(async (error: unknown) => {
    killGroup(child, "SIGKILL");
    await exited(child);
    throw error;
  });
  const caFile = path.join(opts.dataDir, "pki/ca.crt");
  let stopping: Promise<void> | undefined;
  return {
    server: ready.server,
    kubeconfigPath: ready.kubeconfig,
    caFile,
    auditLogPath,
    adminToken,
    pid: child.pid ?? -1,
    async kubeconfigFor({ user, token }) {
      const file = path.join(opts.dataDir, `kubeconfig-${user}`);
      await writeFile(file, kubeconfigYaml({ server: ready.server, caFile, user, token }), { mode: 0o600 });
      return file;
    },
    stop() {
      stopping ??= (async () => {
        killGroup(child, "SIGTERM");
        const timer = setTimeout(() => killGroup(child, "SIGKILL"), STOP_GRACE_MS);
        await exited(child);
        clearTimeout(timer);
        process.off("exit", killOnExit);
      })();
      return stopping;
    },
  };
}

function kubeconfigYaml(input: { server: string; caFile: string; user: string; token: string }): string {
  return `apiVersion: v1
kind: Config
clusters:
  - name: rebound-bench
    cluster:
      server: ${input.server}
      certificate-authority: ${input.caFile}
users:
  - name: ${input.user}
    user:
      token: ${input.token}
contexts:
  - name: ${input.user}
    context:
      cluster: rebound-bench
      user: ${input.user}
current-context: ${input.user}
`;
}
