/**
 * The real Kueue controller for the Kubernetes tests: built from the `sigs.k8s.io/kueue` Go module at a pinned
 * version (beside rebound-kube, in .data/kube/bin) and run as a process on loopback against the test apiserver,
 * with Kueue's own CRDs (kueue.md beside this file).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { parse as parseYaml } from "yaml";
import { type KubeTarget, kubeRequest } from "./kueue-http";

const ROOT = path.resolve(import.meta.dirname, "../..");
/** v1beta1 is the only API version of v0.14 (v0.15 adds v1beta2 behind a conversion webhook). */
export const KUEUE_MODULE = "sigs.k8s.io/kueue";
export const KUEUE_VERSION = "v0.14.0";
const BIN_DIR = path.join(ROOT, ".data/kube/bin");
export const KUEUE_BINARY = path.join(BIN_DIR, "kueue");
export const KUEUE_CRD_DIR = path.join(ROOT, ".data/kube/kueue-crds");
const STAMP = `${KUEUE_BINARY}.version`;
const LDFLAGS = `-s -w -X ${KUEUE_MODULE}/pkg/version.GitVersion=${KUEUE_VERSION}`;
/** Kueue v0.14 reads its metrics certificate from this fixed path when internal cert management is off. */
const METRICS_CERT_DIR = "/etc/kueue/metrics/certs";

type Log = (line: string) => void;

/** Runs a command (through `env`, to add variables to the inherited environment); resolves with its stdout. */
function run(args: string[], log: Log): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("env", args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    const tail: string[] = [];
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    createInterface({ input: child.stderr }).on("line", (line) => {
      tail.push(line);
      if (tail.length > 40) tail.shift();
      log(line);
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (code === 0) resolve(out);
      else if (code === 127)
        reject(new Error("`go` is not installed: building Kueue needs Go 1.25 or later"));
      else reject(new Error(`${args.join(" ")} failed (${signal ?? code}):\n${tail.join("\n")}`));
    });
  });
}

const stampText = (): string => `${KUEUE_MODULE}@${KUEUE_VERSION} ${LDFLAGS}`;

/**
 * Builds .data/kube/bin/kueue (Kueue's manager, `cmd/kueue`) with `go install module@version` and copies its
 * CRDs out of the module cache, unless both are there for the pinned version. The first build takes minutes.
 */
export async function buildKueue(opts: { log?: Log } = {}): Promise<string> {
  const log = opts.log ?? (() => {});
  const built = existsSync(KUEUE_BINARY) && existsSync(STAMP) && existsSync(KUEUE_CRD_DIR);
  if (built && (await readFile(STAMP, "utf8")) === stampText()) return KUEUE_BINARY;
  log(`building Kueue ${KUEUE_VERSION} (${KUEUE_MODULE}/cmd/kueue); the first build takes several minutes…`);
  const staging = path.join(BIN_DIR, `.kueue-${process.pid}`);
  await mkdir(staging, { recursive: true });
  try {
    // `go install` of a module version ignores any go.mod around it and verifies the module's checksums.
    const module = `${KUEUE_MODULE}@${KUEUE_VERSION}`;
    await run(
      [
        `GOBIN=${staging}`,
        "go",
        "install",
        `-ldflags=${LDFLAGS}`,
        `${KUEUE_MODULE}/cmd/kueue@${KUEUE_VERSION}`,
      ],
      log,
    );
    const info = JSON.parse(await run(["go", "mod", "download", "-json", module], log)) as { Dir?: string };
    if (!info.Dir) throw new Error(`go mod download did not say where ${KUEUE_MODULE}@${KUEUE_VERSION} is`);
    await copyCrds(path.join(info.Dir, "config/components/crd/bases"));
    await rename(path.join(staging, "kueue"), KUEUE_BINARY);
    await writeFile(STAMP, stampText());
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return KUEUE_BINARY;
}

async function copyCrds(from: string): Promise<void> {
  await rm(KUEUE_CRD_DIR, { recursive: true, force: true });
  await mkdir(KUEUE_CRD_DIR, { recursive: true });
  for (const name of await readdir(from)) {
    if (name.endsWith(".yaml")) await copyFile(path.join(from, name), path.join(KUEUE_CRD_DIR, name));
  }
}

type Crd = {
  metadata?: { name?: string };
  spec?: {
    group?: string;
    names?: { plural?: string };
    versions?: Array<{ name?: string; storage?: boolean }>;
  };
};

/** Installs (or keeps) Kueue's CRDs and waits until the apiserver lists each of them. */
export async function installKueueCrds(target: KubeTarget): Promise<string[]> {
  const crds: Crd[] = [];
  for (const file of (await readdir(KUEUE_CRD_DIR)).sort()) {
    const crd = parseYaml(await readFile(path.join(KUEUE_CRD_DIR, file), "utf8")) as Crd;
    const created = await kubeRequest(target, {
      method: "POST",
      path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
      body: crd,
    });
    if (created.status !== 201 && created.status !== 409) {
      throw new Error(
        `creating CRD ${crd.metadata?.name ?? file} failed (${created.status}): ${created.text}`,
      );
    }
    crds.push(crd);
  }
  for (const crd of crds) await waitServed(target, crd);
  return crds.map((crd) => crd.metadata?.name ?? "");
}

/**
 * Until a list of the resource answers 200 and discovery names it: right after a CRD is Established the
 * apiserver still answers 429 ("storage is (re)initializing") for a moment, and Kueue exits when its
 * discovery does not find its kinds yet.
 */
async function waitServed(target: KubeTarget, crd: Crd): Promise<void> {
  const version = crd.spec?.versions?.find((each) => each.storage)?.name;
  const listPath = `/apis/${crd.spec?.group}/${version}/${crd.spec?.names?.plural}?limit=1`;
  const deadline = Date.now() + 30_000;
  let last = "";
  while (Date.now() < deadline) {
    const res = await kubeRequest(target, { method: "GET", path: listPath });
    const discovery = await kubeRequest(target, {
      method: "GET",
      path: `/apis/${crd.spec?.group}/${version}`,
    });
    const resources = (discovery.json as { resources?: Array<{ name: string }> } | null)?.resources ?? [];
    if (res.status === 200 && resources.some((each) => each.name === crd.spec?.names?.plural)) return;
    last = `${res.status} ${res.text}`;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`CRD ${crd.metadata?.name} is not served within 30 s: ${last}`);
}

/** The cert for Kueue's webhook and metrics servers (the test CA's serving cert). */
export async function prepareCerts(cluster: { dataDir: string }, certDir: string): Promise<void> {
  const pki = path.join(cluster.dataDir, "pki");
  await mkdir(certDir, { recursive: true });
  await copyFile(path.join(pki, "apiserver.crt"), path.join(certDir, "tls.crt"));
  await copyFile(path.join(pki, "apiserver.key"), path.join(certDir, "tls.key"));
  // Kueue v0.14 has no setting for the metrics certificate's path: it must be at METRICS_CERT_DIR. Only
  // written when absent (it is read, never checked by anyone: no client scrapes the metrics in tests).
  if (!existsSync(path.join(METRICS_CERT_DIR, "tls.crt"))) {
    try {
      await mkdir(METRICS_CERT_DIR, { recursive: true });
      await copyFile(path.join(certDir, "tls.crt"), path.join(METRICS_CERT_DIR, "tls.crt"));
      await copyFile(path.join(certDir, "tls.key"), path.join(METRICS_CERT_DIR, "tls.key"));
    } catch (error) {
      throw new Error(
        `Kueue ${KUEUE_VERSION} reads its metrics certificate from ${METRICS_CERT_DIR}/tls.{crt,key} ` +
          `(fixed path) and it could not be written there (${String(error)}): create it, or run as root`,
      );
    }
  }
}
