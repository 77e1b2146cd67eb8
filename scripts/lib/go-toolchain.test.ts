import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DEFAULT_GOPROXY,
  dirHash1,
  fetchGoToolchain,
  proxyBase,
  TOOLCHAIN_HASHES,
  toolchainUrl,
  toolchainVersion,
} from "./go-toolchain";

const exec = promisify(execFile);

describe("toolchainVersion and toolchainUrl", () => {
  it("name the module version go itself would fetch for this platform", () => {
    expect(toolchainVersion("linux", "x64")).toBe("v0.0.1-go1.26.8.linux-amd64");
    expect(toolchainVersion("linux", "arm64")).toBe("v0.0.1-go1.26.8.linux-arm64");
    expect(toolchainVersion("darwin", "arm64", "1.27.0")).toBe("v0.0.1-go1.27.0.darwin-arm64");
    expect(toolchainUrl(DEFAULT_GOPROXY, "v0.0.1-go1.26.8.linux-amd64")).toBe(
      "https://proxy.golang.org/golang.org/toolchain/@v/v0.0.1-go1.26.8.linux-amd64.zip",
    );
    expect(Object.keys(TOOLCHAIN_HASHES)).toContain(toolchainVersion("linux", "x64"));
  });
});

describe("proxyBase", () => {
  it("takes GOPROXY's first http(s) proxy, proxy.golang.org when unset", () => {
    expect(proxyBase(undefined)).toEqual({ ok: true, url: "https://proxy.golang.org" });
    expect(proxyBase("")).toEqual({ ok: true, url: "https://proxy.golang.org" });
    expect(proxyBase("https://goproxy.example.com/,direct")).toEqual({
      ok: true,
      url: "https://goproxy.example.com",
    });
    expect(proxyBase("direct|http://10.0.0.1:3000/go")).toEqual({ ok: true, url: "http://10.0.0.1:3000/go" });
  });

  it("refuses a GOPROXY without a proxy before off, naming GOPROXY", () => {
    for (const goproxy of ["off", "direct", "off,https://proxy.golang.org", "file:///srv/goproxy"]) {
      const result = proxyBase(goproxy);
      expect(result.ok).toBe(false);
      expect(!result.ok && result.reason).toContain(`GOPROXY=${goproxy}`);
    }
  });
});

describe("dirHash1", () => {
  it("gives the checksum database's h1 of the toolchain's go.mod (a one-file tree)", async () => {
    // `<proxy>/sumdb/sum.golang.org/lookup/golang.org/toolchain@v0.0.1-go1.26.8.linux-amd64`, second line.
    const dir = await mkdtemp(path.join(tmpdir(), "rebound-dirhash-"));
    await writeFile(path.join(dir, "go.mod"), "module golang.org/toolchain\n");
    expect(await dirHash1(dir)).toBe("h1:8wlg68NqwW7eMnI1aABk/C2pDYXj8mrMY4TyRfiLeS0=");
    await rm(dir, { recursive: true });
  });
});

/**
 * A module proxy on loopback serving a toolchain zip made here (a `go` that prints its version), so the
 * fetch, unpacking, verification, modes and cache are exercised for real without 70 MB per run.
 */
describe("fetchGoToolchain", () => {
  const version = "v0.0.1-go1.26.8.linux-amd64";
  const requests: string[] = [];
  const zips = new Map<string, Buffer>();
  let dir: string;
  let server: Server;
  let proxy: string;
  let goodHash: string;

  async function makeZip(name: string, goScript: string): Promise<string> {
    const tree = path.join(dir, name);
    const root = path.join(tree, `golang.org/toolchain@${version}`);
    await mkdir(path.join(root, "bin"), { recursive: true });
    await mkdir(path.join(root, "pkg/tool/linux_amd64"), { recursive: true });
    await writeFile(path.join(root, "bin/go"), goScript);
    await writeFile(path.join(root, "pkg/tool/linux_amd64/compile"), "#!/bin/sh\n");
    await writeFile(path.join(root, "VERSION"), "go1.26.8\n");
    await chmod(path.join(root, "bin/go"), 0o644); // zips record no modes: the fetch must set them
    const hash = await dirHash1(tree);
    const zip = path.join(dir, `${name}.zip`);
    await exec("python3", ["-m", "zipfile", "-c", zip, "golang.org"], { cwd: tree });
    zips.set(name, await readFile(zip));
    return hash;
  }

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "rebound-goproxy-"));
    goodHash = await makeZip("good", "#!/bin/sh\necho go version go1.26.8 linux/amd64\n");
    await makeZip("tampered", "#!/bin/sh\necho pwned\n");
    server = createServer((request, response) => {
      requests.push(request.url ?? "");
      const match = /^\/(\w+)\/golang\.org\/toolchain\/@v\/(.+)\.zip$/.exec(request.url ?? "");
      const body = match?.[2] === version ? zips.get(match[1] ?? "") : undefined;
      response.writeHead(body ? 200 : 404).end(body ?? "not found");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    proxy = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  it("downloads, verifies and unpacks the toolchain with bin/go executable, then serves it from the cache", async () => {
    const cacheDir = path.join(dir, "cache-good");
    const goproxy = `${proxy}/good/,direct`;
    const first = await fetchGoToolchain({ cacheDir, goproxy, version, hash: goodHash });
    expect(first.bin).toBe(path.join(cacheDir, version, "bin"));
    expect(first.download?.url).toBe(`${proxy}/good/golang.org/toolchain/@v/${version}.zip`);
    expect(first.download?.bytes).toBe(zips.get("good")?.length);
    const { stdout } = await exec(path.join(first.bin, "go"), ["version"]);
    expect(stdout).toBe("go version go1.26.8 linux/amd64\n");
    await exec(path.join(cacheDir, version, "pkg/tool/linux_amd64/compile"));
    expect(await readdir(cacheDir)).toEqual([version]);

    const before = requests.length;
    const again = await fetchGoToolchain({ cacheDir, goproxy, version, hash: goodHash });
    expect(again).toEqual({ bin: first.bin });
    expect(requests.length).toBe(before);
  });

  it("refuses a zip whose hash differs and leaves nothing in the cache", async () => {
    const cacheDir = path.join(dir, "cache-tampered");
    await expect(
      fetchGoToolchain({ cacheDir, goproxy: `${proxy}/tampered`, version, hash: goodHash }),
    ).rejects.toThrow(/hashes h1:\S+, not h1:\S+: refused/);
    expect(await readdir(cacheDir)).toEqual([]);
  });

  it("says which URL failed with which status, and needs a pinned hash for the version", async () => {
    const cacheDir = path.join(dir, "cache-missing");
    await expect(
      fetchGoToolchain({ cacheDir, goproxy: `${proxy}/nothing`, version, hash: goodHash }),
    ).rejects.toThrow(`GET ${proxy}/nothing/golang.org/toolchain/@v/${version}.zip: HTTP 404`);
    await expect(
      fetchGoToolchain({ cacheDir, goproxy: proxy, version: "v0.0.1-go1.26.8.plan9-386" }),
    ).rejects.toThrow("no pinned checksum for golang.org/toolchain@v0.0.1-go1.26.8.plan9-386");
    await expect(fetchGoToolchain({ cacheDir, goproxy: "off", version, hash: goodHash })).rejects.toThrow(
      "GOPROXY=off",
    );
    expect(existsSync(path.join(cacheDir, version))).toBe(false);
  });
});
