/**
 * A Go toolchain for `npm test` on a machine without Go (or with one too old for e2e/kube): Go publishes
 * each release as a module, `golang.org/toolchain@v0.0.1-go<release>.<os>-<arch>`, on the Go module proxy,
 * which is also how `go` itself switches toolchains (GOTOOLCHAIN). The zip is downloaded from the first
 * proxy in GOPROXY, unpacked under the build cache (.data/toolchains), checked against the checksum
 * database's hash pinned below (the same `h1:` hash go.sum holds), and its bin/ put first on PATH.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { createWriteStream, existsSync } from "node:fs";
import { chmod, mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream } from "node:stream/web";
import { promisify } from "node:util";

export const GO_RELEASE = "1.26.8";
export const DEFAULT_GOPROXY = "https://proxy.golang.org";

/**
 * sum.golang.org's hashes of the toolchain modules (`<proxy>/sumdb/sum.golang.org/lookup/golang.org/
 * toolchain@<version>`): a download that hashes otherwise is refused, whichever proxy served it.
 */
export const TOOLCHAIN_HASHES: Readonly<Record<string, string>> = {
  "v0.0.1-go1.26.8.linux-amd64": "h1:ZOmGe1OnfREDMIdb1Qi4G9JSuDPBLGExZMQ4nis1RXM=",
  "v0.0.1-go1.26.8.linux-arm64": "h1:sYL/O6MqS68ML0kjsQ36WoYIpJqkw60TxizWUYUKQMc=",
};

const GO_ARCH: Readonly<Record<string, string>> = { x64: "amd64", arm64: "arm64" };

/** The toolchain module's version for a Node platform and arch ("linux", "x64" → v0.0.1-go1.26.8.linux-amd64). */
export function toolchainVersion(platform: string, arch: string, release = GO_RELEASE): string {
  return `v0.0.1-go${release}.${platform}-${GO_ARCH[arch] ?? arch}`;
}

/**
 * The proxy to download from: GOPROXY's first entry that is an http(s) URL, as `go` tries them in order
 * (entries are separated by "," or "|"; "direct" and "off" are keywords). Unset or empty: proxy.golang.org.
 * A GOPROXY with no such URL before "off" gives an error naming GOPROXY: `direct` (from the origin's
 * version control) is not how toolchains are published.
 */
export function proxyBase(
  goproxy: string | undefined,
): { ok: true; url: string } | { ok: false; reason: string } {
  const entries = (goproxy ?? "").split(/[,|]/).map((entry) => entry.trim());
  if (entries.every((entry) => entry === "")) return { ok: true, url: DEFAULT_GOPROXY };
  for (const entry of entries) {
    if (entry === "off") break;
    if (/^https?:\/\//.test(entry)) return { ok: true, url: entry.replace(/\/+$/, "") };
  }
  return {
    ok: false,
    reason: `GOPROXY=${goproxy} names no http(s) module proxy before "off" to fetch golang.org/toolchain from`,
  };
}

/** Where the module proxy protocol serves a module version's zip (module paths here are all lower case). */
export function toolchainUrl(proxy: string, version: string): string {
  return `${proxy}/golang.org/toolchain/@v/${version}.zip`;
}

async function listFiles(root: string, dir = ""): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(path.join(root, dir), { withFileTypes: true })) {
    const name = dir === "" ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) files.push(...(await listFiles(root, name)));
    else files.push(name);
  }
  return files;
}

/**
 * golang.org/x/mod/sumdb/dirhash's Hash1 over an unpacked module zip: the SHA-256 of the lines
 * "<sha256 hex>  <name>\n" for every file, sorted by name (byte order), base64, prefixed "h1:".
 */
export async function dirHash1(root: string): Promise<string> {
  const names = (await listFiles(root)).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const summary = createHash("sha256");
  for (const name of names) {
    const file = createHash("sha256").update(await readFile(path.join(root, name)));
    summary.update(`${file.digest("hex")}  ${name}\n`);
  }
  return `h1:${summary.digest("base64")}`;
}

async function download(url: string, file: string): Promise<number> {
  const response = await fetch(url, { signal: AbortSignal.timeout(15 * 60_000) });
  if (!response.ok || !response.body) throw new Error(`GET ${url}: HTTP ${response.status}`);
  await pipeline(Readable.fromWeb(response.body as ReadableStream<Uint8Array>), createWriteStream(file));
  return (await stat(file)).size;
}

/** Module zips record no file modes (go marks the same two folders executable when it unpacks one). */
async function markExecutable(goroot: string): Promise<void> {
  const tools = path.join(goroot, "pkg/tool");
  const toolDirs = existsSync(tools) ? (await readdir(tools)).map((name) => path.join(tools, name)) : [];
  for (const dir of [path.join(goroot, "bin"), ...toolDirs]) {
    if (!existsSync(dir)) continue;
    for (const name of await readdir(dir)) await chmod(path.join(dir, name), 0o755);
  }
}

export type FetchedToolchain = {
  /** The toolchain's bin folder, holding `go`. */
  bin: string;
  /** Undefined when it was already in the cache. */
  download?: { url: string; bytes: number; seconds: number };
};

export type FetchToolchainOptions = {
  /** The build cache folder toolchains are unpacked under (one folder per version). */
  cacheDir: string;
  goproxy: string | undefined;
  version: string;
  /** The expected `h1:` hash; default TOOLCHAIN_HASHES[version]. */
  hash?: string;
};

/** Python's standard zipfile (npm test's set-up already needs python3), as Debian has no unzip by default. */
async function unzip(zip: string, dir: string): Promise<void> {
  try {
    await promisify(execFile)("python3", ["-m", "zipfile", "-e", zip, dir]);
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim().split("\n").at(-1);
    throw new Error(`cannot unpack ${zip} with python3 -m zipfile: ${stderr || String(error)}`);
  }
}

/**
 * Returns the cached toolchain, or downloads, unpacks and verifies it first. Unpacked beside its final
 * folder and renamed into place once verified, so a failed or concurrent fetch never leaves a half one.
 */
export async function fetchGoToolchain(opts: FetchToolchainOptions): Promise<FetchedToolchain> {
  const { cacheDir, version } = opts;
  const want = opts.hash ?? TOOLCHAIN_HASHES[version];
  if (!want) throw new Error(`no pinned checksum for golang.org/toolchain@${version}`);
  const goroot = path.join(cacheDir, version);
  const stamp = path.join(goroot, ".rebound-verified");
  const bin = path.join(goroot, "bin");
  if (existsSync(stamp) && (await readFile(stamp, "utf8")) === want) return { bin };
  const proxy = proxyBase(opts.goproxy);
  if (!proxy.ok) throw new Error(proxy.reason);
  const url = toolchainUrl(proxy.url, version);
  const staging = `${goroot}.${process.pid}.tmp`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  try {
    const started = Date.now();
    const zip = path.join(staging, "toolchain.zip");
    const bytes = await download(url, zip);
    const unpacked = path.join(staging, "unpacked");
    await unzip(zip, unpacked);
    const got = await dirHash1(unpacked);
    if (got !== want) {
      throw new Error(`golang.org/toolchain@${version} from ${url} hashes ${got}, not ${want}: refused`);
    }
    const root = path.join(unpacked, `golang.org/toolchain@${version}`);
    await markExecutable(root);
    await writeFile(path.join(root, ".rebound-verified"), want);
    await rm(goroot, { recursive: true, force: true });
    await rename(root, goroot);
    return { bin, download: { url, bytes, seconds: (Date.now() - started) / 1000 } };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
