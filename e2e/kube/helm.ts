/**
 * The `helm` CLI for the chart's tests (deploy/chart): built from the `helm.sh/helm/v3` Go module at a pinned
 * version into .data/kube/bin, beside rebound-kube and Kueue, the way kueue.ts builds Kueue. The kubernetes
 * project's global set-up builds it (with the test cluster); unit tests call buildHelm, which returns at
 * once when it is there.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");
export const HELM_MODULE = "helm.sh/helm/v3";
export const HELM_VERSION = "v3.21.4";
const BIN_DIR = path.join(ROOT, ".data/kube/bin");
export const HELM_BINARY = path.join(BIN_DIR, "helm");
const STAMP = `${HELM_BINARY}.version`;
/** Without these, `helm version` says only the major and minor (internal/version's default). */
const LDFLAGS = `-s -w -X ${HELM_MODULE}/internal/version.version=${HELM_VERSION}`;

type Log = (line: string) => void;

export type HelmResult = { code: number; stdout: string; stderr: string };

/**
 * Runs a command through `env` (its leading NAME=value arguments add to the inherited environment);
 * resolves with its exit code and output, never rejects for a non-zero exit.
 */
function exec(args: string[]): Promise<HelmResult> {
  return new Promise((resolve, reject) => {
    const child = spawn("env", args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr }));
  });
}

const stampText = (): string => `${HELM_MODULE}@${HELM_VERSION} ${LDFLAGS}`;

/** Builds .data/kube/bin/helm unless it is there for the pinned version (the first build takes minutes). */
export async function buildHelm(opts: { log?: Log } = {}): Promise<string> {
  const log = opts.log ?? (() => {});
  if (existsSync(HELM_BINARY) && existsSync(STAMP) && (await readFile(STAMP, "utf8")) === stampText())
    return HELM_BINARY;
  log(`building helm ${HELM_VERSION} (${HELM_MODULE}/cmd/helm); the first build takes a few minutes…`);
  // Each build in its own folder, then a rename: a concurrent reader never sees half a file.
  const staging = path.join(BIN_DIR, `.helm-${process.pid}`);
  await mkdir(staging, { recursive: true });
  try {
    // `go install module@version` ignores any go.mod around it and verifies the module's checksums.
    const built = await exec([
      `GOBIN=${staging}`,
      "go",
      "install",
      `-ldflags=${LDFLAGS}`,
      `${HELM_MODULE}/cmd/helm@${HELM_VERSION}`,
    ]);
    if (built.code === 127)
      throw new Error(`\`go\` is not installed: building helm ${HELM_VERSION} needs Go 1.26 or later`);
    if (built.code !== 0)
      throw new Error(`go install helm failed (${built.code}):\n${built.stderr.slice(-4000)}`);
    await rename(path.join(staging, "helm"), HELM_BINARY);
    await writeFile(STAMP, stampText());
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return HELM_BINARY;
}

/**
 * Runs the built helm with its own empty config, cache and data folders under `home` (no repositories, no
 * plugins, nothing from the user's ~/.config/helm), against `kubeconfig` when given.
 */
export async function runHelm(
  args: string[],
  opts: { home: string; kubeconfig?: string },
): Promise<HelmResult> {
  const binary = await buildHelm();
  return exec([
    `HELM_CONFIG_HOME=${path.join(opts.home, "config")}`,
    `HELM_CACHE_HOME=${path.join(opts.home, "cache")}`,
    `HELM_DATA_HOME=${path.join(opts.home, "data")}`,
    binary,
    ...args,
    ...(opts.kubeconfig ? ["--kubeconfig", opts.kubeconfig] : []),
  ]);
}
