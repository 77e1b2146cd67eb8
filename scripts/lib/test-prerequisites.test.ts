import { describe, expect, it } from "vitest";
import type { FetchedToolchain } from "./go-toolchain";
import {
  type CommandResult,
  ensurePrerequisites,
  goVersion,
  type Host,
  planPrerequisites,
} from "./test-prerequisites";

/**
 * A pretend Debian machine: a set of files and executables, a Python and a Go that answer like the real
 * ones, an apt-get that really "installs" (adds the package's files) so the re-check after an install
 * sees the result, and a Go module proxy whose toolchain, once fetched, is the `go` PATH finds first.
 * Every command run is recorded.
 */
const PACKAGE_FILES: Record<string, string[]> = {
  chromium: ["/usr/bin/chromium"],
  prometheus: ["/usr/bin/prometheus", "/usr/bin/promtool"],
  "python3-venv": ["python:venv"],
  "python3-pip": ["python:pip"],
};

type Machine = Host & { files: Set<string>; commands: string[]; path: string[] };

const FETCHED_BIN = "/repo/.data/toolchains/v0.0.1-go1.26.8.linux-amd64/bin";
const FETCH_URL = "https://proxy.golang.org/golang.org/toolchain/@v/v0.0.1-go1.26.8.linux-amd64.zip";

function machine(opts: {
  files?: string[];
  isRoot?: boolean;
  apt?: boolean;
  go?: string;
  chromiumPath?: string;
  brokenPackages?: string[];
  failUpdate?: boolean;
  /** What the proxy gives: a toolchain (cached: fetched by an earlier run), or the error fetching it. */
  proxy?: "fresh" | "cached" | Error;
}): Machine {
  const files = new Set([...(opts.files ?? []), "/usr/bin/python3"]);
  if (opts.apt !== false) files.add("/usr/bin/apt-get");
  if (opts.go) files.add("/usr/local/go/bin/go");
  const commands: string[] = [];
  const searchPath: string[] = [];
  const fetchGo = async (): Promise<FetchedToolchain> => {
    const proxy = opts.proxy ?? "fresh";
    if (proxy instanceof Error) throw proxy;
    files.add(`${FETCHED_BIN}/go`);
    if (proxy === "cached") return { bin: FETCHED_BIN };
    return { bin: FETCHED_BIN, download: { url: FETCH_URL, bytes: 71_680_185, seconds: 7.3 } };
  };
  // The first go on PATH answers: the fetched one once its folder is put in front.
  const goAnswer = () => (searchPath.includes(FETCHED_BIN) ? "go1.26.8" : opts.go);
  const ok = (output = ""): CommandResult => ({ code: 0, output });
  const fail = (output: string): CommandResult => ({ code: 1, output });
  const install = (pkg: string) => {
    if (opts.brokenPackages?.includes(pkg)) return;
    for (const file of PACKAGE_FILES[pkg] ?? []) files.add(file);
  };
  const aptGet = (args: string[]): CommandResult => {
    if (args.includes("update")) return opts.failUpdate ? fail("E: Could not get lock\n") : ok();
    const pkg = args.at(-1) ?? "";
    if (!PACKAGE_FILES[pkg]) return fail(`E: Unable to locate package ${pkg}`);
    install(pkg);
    return ok();
  };
  const python = (args: string[]): CommandResult => {
    if (args[0] === "-c") return files.has("python:venv") ? ok() : fail("No module named 'ensurepip'");
    return files.has("python:pip") ? ok("pip 23.0.1") : fail("No module named pip");
  };
  const host: Machine = {
    files,
    commands,
    path: searchPath,
    fetchGo,
    addToPath: (dir) => searchPath.unshift(dir),
    isRoot: opts.isRoot ?? true,
    chromiumPath: opts.chromiumPath,
    exists: (file) => files.has(file),
    which: (command) => [...files].some((file) => file.endsWith(`/bin/${command}`)),
    run: async (command, args) => {
      commands.push([command, ...args].join(" "));
      if (!host.which(command)) return { code: 127, output: `spawn ${command} ENOENT` };
      if (command === "apt-get") return aptGet(args);
      if (command === "python3") return python(args);
      if (command === "go") return ok(`go version ${goAnswer()} linux/amd64\n`);
      return fail(`unknown command ${command}`);
    },
  };
  return host;
}

const EVERYTHING = Object.values(PACKAGE_FILES).flat();
const aptCommands = (host: Machine) => host.commands.filter((command) => command.startsWith("apt-get"));

describe("planPrerequisites", () => {
  it("does nothing when everything is there", async () => {
    const host = machine({ files: EVERYTHING, go: "go1.26.8" });
    expect(await planPrerequisites(host)).toEqual({ action: "none" });
  });

  it("installs what is missing as root with apt-get", async () => {
    const host = machine({ files: ["python:venv", "python:pip"], go: "go1.26.8" });
    const plan = await planPrerequisites(host);
    expect(plan.action === "install" && plan.requirements.map((r) => r.aptPackage)).toEqual([
      "chromium",
      "prometheus",
    ]);
  });

  it("counts Prometheus missing when only one of promtool and prometheus is there", async () => {
    const host = machine({ files: [...EVERYTHING.filter((f) => f !== "/usr/bin/promtool")], go: "go1.27.0" });
    const plan = await planPrerequisites(host);
    expect(plan.action === "install" && plan.requirements.map((r) => r.aptPackage)).toEqual(["prometheus"]);
  });

  it("stops with the sudo apt-get line when not root", async () => {
    const host = machine({
      files: EVERYTHING.filter((f) => f !== "/usr/bin/chromium"),
      go: "go1.26.0",
      isRoot: false,
    });
    expect(await planPrerequisites(host)).toEqual({
      action: "stop",
      lines: [
        "npm test needs Chromium for the e2e tests: run `sudo apt-get install chromium`, or set PLAYWRIGHT_CHROMIUM_PATH",
      ],
    });
  });

  it("stops without naming apt-get where there is none, one line per missing thing", async () => {
    const host = machine({ files: ["/usr/bin/chromium"], go: "go1.26.1", apt: false });
    const plan = await planPrerequisites(host);
    expect(plan.action).toBe("stop");
    expect(plan.action === "stop" && plan.lines).toEqual([
      "npm test needs Prometheus (promtool and prometheus) for the integration tests: install Debian's `prometheus` package or its equivalent",
      "npm test needs Python's venv for a conformance test's virtualenv: install Debian's `python3-venv` package or its equivalent",
      "npm test needs pip for a conformance test's virtualenv: install Debian's `python3-pip` package or its equivalent",
    ]);
  });

  it("takes PLAYWRIGHT_CHROMIUM_PATH instead of Debian's Chromium, and only when that file exists", async () => {
    const given = machine({
      files: [...EVERYTHING.slice(1), "/opt/chrome"],
      go: "go1.26.8",
      chromiumPath: "/opt/chrome",
    });
    expect(await planPrerequisites(given)).toEqual({ action: "none" });
    const wrong = machine({ files: EVERYTHING, go: "go1.26.8", chromiumPath: "/opt/nothing" });
    const plan = await planPrerequisites(wrong);
    expect(plan.action === "install" && plan.requirements.map((r) => r.name)).toEqual(["Chromium"]);
  });

  it("fetches an old or missing Go, which apt-get cannot provide, even without root", async () => {
    const old = machine({ files: EVERYTHING, go: "go1.19.8", isRoot: false });
    const plan = await planPrerequisites(old);
    expect(plan.action === "install" && plan.requirements.map((r) => r.name)).toEqual(["Go >= 1.26"]);
    const none = machine({ files: EVERYTHING, apt: false });
    const nonePlan = await planPrerequisites(none);
    expect(nonePlan.action === "install" && nonePlan.requirements.map((r) => r.name)).toEqual(["Go >= 1.26"]);
  });

  it("stops for what only apt-get can bring when it cannot run, without fetching Go first", async () => {
    const host = machine({ files: EVERYTHING.filter((f) => f !== "/usr/bin/chromium"), isRoot: false });
    const plan = await planPrerequisites(host);
    expect(plan.action === "stop" && plan.lines).toEqual([
      "npm test needs Chromium for the e2e tests: run `sudo apt-get install chromium`, or set PLAYWRIGHT_CHROMIUM_PATH",
    ]);
    expect(host.path).toEqual([]);
  });
});

describe("ensurePrerequisites", () => {
  it("runs apt-get update once, installs each missing package, and says so in one line per package", async () => {
    const host = machine({ files: ["/usr/bin/promtool", "/usr/bin/prometheus"], go: "go1.26.8" });
    const lines: string[] = [];
    expect(await ensurePrerequisites({ host, log: (line) => lines.push(line) })).toEqual([]);
    expect(aptCommands(host).map((command) => command.replace(/ -o \S+ -qq/, ""))).toEqual([
      "apt-get update",
      "apt-get install -y --no-install-recommends chromium",
      "apt-get install -y --no-install-recommends python3-venv",
      "apt-get install -y --no-install-recommends python3-pip",
    ]);
    expect(lines).toHaveLength(4);
    expect(lines[0]).toBe(
      "npm test: chromium, python3-venv, python3-pip missing here; installing with apt-get (apt-get update first)…",
    );
    expect(lines[1]).toMatch(
      /^installed chromium with apt-get \(Chromium, for the e2e tests\) in \d+\.\d s$/,
    );
    expect(await planPrerequisites(host)).toEqual({ action: "none" });
  });

  it("runs no apt-get at all when nothing is missing", async () => {
    const host = machine({ files: EVERYTHING, go: "go1.26.8" });
    const lines: string[] = [];
    expect(await ensurePrerequisites({ host, log: (line) => lines.push(line) })).toEqual([]);
    expect(aptCommands(host)).toEqual([]);
    expect(lines).toEqual([]);
  });

  it("stops with apt-get's last line when the update fails", async () => {
    const host = machine({ files: [], go: "go1.26.8", failUpdate: true });
    const stop = await ensurePrerequisites({ host, log: () => {} });
    expect(stop).toEqual(["`apt-get update` failed: E: Could not get lock"]);
    expect(aptCommands(host)).toHaveLength(1);
  });

  it("stops when a package installed but the thing is still not found", async () => {
    const host = machine({ files: EVERYTHING.slice(1), go: "go1.26.8", brokenPackages: ["chromium"] });
    const [line, ...rest] = await ensurePrerequisites({ host, log: () => {} });
    expect(rest).toEqual([]);
    expect(line).toMatch(/^installed chromium, but npm test still finds no Chromium: /);
  });
});

describe("ensurePrerequisites with Go missing or too old", () => {
  it("fetches the toolchain, puts it first on PATH ahead of Debian's 1.19, and runs no apt-get", async () => {
    const host = machine({ files: EVERYTHING, go: "go1.19.8", isRoot: false });
    const lines: string[] = [];
    expect(await ensurePrerequisites({ host, log: (line) => lines.push(line) })).toEqual([]);
    expect(host.path).toEqual([FETCHED_BIN]);
    expect(lines).toEqual([`fetched Go from ${FETCH_URL} (71.7 MB) in 7.3 s; using ${FETCHED_BIN}`]);
    expect(host.commands.at(-1)).toBe("go version");
    expect(aptCommands(host)).toEqual([]);
  });

  it("uses the toolchain an earlier run fetched, saying so", async () => {
    const host = machine({ files: EVERYTHING, proxy: "cached" });
    const lines: string[] = [];
    expect(await ensurePrerequisites({ host, log: (line) => lines.push(line) })).toEqual([]);
    expect(lines).toEqual([`using the Go fetched earlier, ${FETCHED_BIN}`]);
  });

  it("installs packages with apt-get and fetches Go in one run", async () => {
    const host = machine({ files: ["python:venv", "python:pip"] });
    expect(await ensurePrerequisites({ host, log: () => {} })).toEqual([]);
    expect(aptCommands(host)).toHaveLength(3);
    expect(host.path).toEqual([FETCHED_BIN]);
    expect(await planPrerequisites(host)).toEqual({ action: "none" });
  });

  it("stops with the fetch's reason and what to do by hand when the proxy fails", async () => {
    const host = machine({ files: EVERYTHING, proxy: new Error(`GET ${FETCH_URL}: HTTP 503`) });
    expect(await ensurePrerequisites({ host, log: () => {} })).toEqual([
      `npm test needs Go >= 1.26 for the Kubernetes tests and could not fetch it (GET ${FETCH_URL}: HTTP 503): install it from https://go.dev/dl/ and put its bin directory on PATH`,
    ]);
    expect(host.path).toEqual([]);
  });
});

describe("goVersion", () => {
  it("reads major and minor from `go version`", () => {
    expect(goVersion("go version go1.26.8 linux/amd64")).toEqual({ major: 1, minor: 26 });
    expect(goVersion("go version devel +abc")).toBeUndefined();
  });
});
