import { describe, expect, it } from "vitest";
import {
  type CommandResult,
  ensurePrerequisites,
  goVersion,
  type Host,
  planPrerequisites,
} from "./test-prerequisites";

/**
 * A pretend Debian machine: a set of files and executables, a Python and a Go that answer like the real
 * ones, and an apt-get that really "installs" (adds the package's files) so the re-check after an install
 * sees the result. Every command run is recorded.
 */
const PACKAGE_FILES: Record<string, string[]> = {
  chromium: ["/usr/bin/chromium"],
  prometheus: ["/usr/bin/prometheus", "/usr/bin/promtool"],
  "python3-venv": ["python:venv"],
  "python3-pip": ["python:pip"],
};

type Machine = Host & { files: Set<string>; commands: string[] };

function machine(opts: {
  files?: string[];
  isRoot?: boolean;
  apt?: boolean;
  go?: string;
  chromiumPath?: string;
  brokenPackages?: string[];
  failUpdate?: boolean;
}): Machine {
  const files = new Set([...(opts.files ?? []), "/usr/bin/python3"]);
  if (opts.apt !== false) files.add("/usr/bin/apt-get");
  if (opts.go) files.add("/usr/local/go/bin/go");
  const commands: string[] = [];
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
    isRoot: opts.isRoot ?? true,
    chromiumPath: opts.chromiumPath,
    exists: (file) => files.has(file),
    which: (command) => [...files].some((file) => file.endsWith(`/bin/${command}`)),
    run: async (command, args) => {
      commands.push([command, ...args].join(" "));
      if (!host.which(command)) return { code: 127, output: `spawn ${command} ENOENT` };
      if (command === "apt-get") return aptGet(args);
      if (command === "python3") return python(args);
      if (command === "go") return ok(`go version ${opts.go} linux/amd64\n`);
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

  it("stops for an old or missing Go, which apt-get cannot provide, before installing anything", async () => {
    const old = machine({ files: [], go: "go1.19.8" });
    expect(await planPrerequisites(old)).toEqual({
      action: "stop",
      lines: [
        "npm test needs Go >= 1.26 for the Kubernetes tests: install it from https://go.dev/dl/ and put its bin directory on PATH",
      ],
    });
    const none = machine({ files: EVERYTHING });
    expect((await planPrerequisites(none)).action).toBe("stop");
    expect(aptCommands(old)).toEqual([]);
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

describe("goVersion", () => {
  it("reads major and minor from `go version`", () => {
    expect(goVersion("go version go1.26.8 linux/amd64")).toEqual({ major: 1, minor: 26 });
    expect(goVersion("go version devel +abc")).toBeUndefined();
  });
});
