/**
 * What `npm test` needs outside node_modules, and the decision what to do about it: nothing, install the
 * missing Debian packages (as root with apt-get) and fetch a Go toolchain from the Go module proxy
 * (go-toolchain.ts), or stop before any test step with one line per missing thing saying exactly what to
 * run. The host is injected (test-prerequisites-host.ts is the real one), so the decision is unit-tested
 * with a pretend machine.
 */
import type { FetchedToolchain } from "./go-toolchain";

export type CommandResult = { code: number; output: string };

export type Host = {
  /** Whether an executable of this name is on PATH. */
  which(command: string): boolean;
  exists(file: string): boolean;
  isRoot: boolean;
  /** Runs a command to completion, capturing stdout and stderr; a command that cannot start gives code 127. */
  run(command: string, args: string[]): Promise<CommandResult>;
  /** PLAYWRIGHT_CHROMIUM_PATH: a Chromium to use instead of Debian's. */
  chromiumPath?: string;
  /** The Go toolchain from the module proxy (GOPROXY), from the build cache once fetched; throws why not. */
  fetchGo(): Promise<FetchedToolchain>;
  /** Puts a folder first on PATH, for this process and every test step it starts. */
  addToPath(dir: string): void;
};

export type Requirement = {
  name: string;
  /** Why npm test needs it, shown in every line about it. */
  purpose: string;
  /** The Debian package that provides it; none: apt-get cannot (the line says what to do instead). */
  aptPackage?: string;
  /** What else would do, appended to the apt-get advice ("or set PLAYWRIGHT_CHROMIUM_PATH"). */
  alternative?: string;
  present(host: Host): Promise<boolean>;
  /** Provides it without apt-get (and without root): resolves to a line saying why not, or undefined. */
  provide?(host: Host, log: (line: string) => void): Promise<string | undefined>;
};

export const DEBIAN_CHROMIUM = "/usr/bin/chromium";
export const MIN_GO = { major: 1, minor: 26 };

const succeeds = async (host: Host, command: string, args: string[]) =>
  (await host.run(command, args)).code === 0;

/** Parses `go version` output ("go version go1.26.8 linux/amd64"); undefined when it names no version. */
export function goVersion(output: string): { major: number; minor: number } | undefined {
  const match = /\bgo(\d+)\.(\d+)/.exec(output);
  return match ? { major: Number(match[1]), minor: Number(match[2]) } : undefined;
}

async function goIsRecent(host: Host): Promise<boolean> {
  const result = await host.run("go", ["version"]);
  const version = result.code === 0 ? goVersion(result.output) : undefined;
  if (!version) return false;
  return version.major > MIN_GO.major || (version.major === MIN_GO.major && version.minor >= MIN_GO.minor);
}

const GO_ADVICE = "install it from https://go.dev/dl/ and put its bin directory on PATH";

/** Fetches (or finds in the cache) the toolchain and puts it first on PATH, ahead of an older Go. */
async function provideGo(host: Host, log: (line: string) => void): Promise<string | undefined> {
  try {
    const toolchain = await host.fetchGo();
    host.addToPath(toolchain.bin);
    const fetched = toolchain.download;
    log(
      fetched
        ? `fetched Go from ${fetched.url} (${(fetched.bytes / 1e6).toFixed(1)} MB) in ${fetched.seconds.toFixed(1)} s; using ${toolchain.bin}`
        : `using the Go fetched earlier, ${toolchain.bin}`,
    );
    return undefined;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return `npm test needs Go >= ${MIN_GO.major}.${MIN_GO.minor} for the Kubernetes tests and could not fetch it (${reason}): ${GO_ADVICE}`;
  }
}

export const REQUIREMENTS: Requirement[] = [
  {
    name: "Chromium",
    purpose: "the e2e tests",
    aptPackage: "chromium",
    alternative: "set PLAYWRIGHT_CHROMIUM_PATH",
    present: async (host) => host.exists(host.chromiumPath ?? DEBIAN_CHROMIUM),
  },
  {
    name: "Prometheus (promtool and prometheus)",
    purpose: "the integration tests",
    aptPackage: "prometheus",
    present: async (host) => host.which("promtool") && host.which("prometheus"),
  },
  {
    name: "Python's venv",
    purpose: "a conformance test's virtualenv",
    aptPackage: "python3-venv",
    // Debian moves ensurepip, which `python3 -m venv` needs, into python3-venv.
    present: (host) => succeeds(host, "python3", ["-c", "import ensurepip, venv"]),
  },
  {
    name: "pip",
    purpose: "a conformance test's virtualenv",
    aptPackage: "python3-pip",
    present: (host) => succeeds(host, "python3", ["-m", "pip", "--version"]),
  },
  {
    name: `Go >= ${MIN_GO.major}.${MIN_GO.minor}`,
    purpose: "the Kubernetes tests",
    // Debian 12's golang-go is 1.19, too old for the k8s.io modules e2e/kube builds: fetched instead.
    alternative: GO_ADVICE,
    present: goIsRecent,
    provide: provideGo,
  },
];

export type Plan =
  | { action: "none" }
  | { action: "install"; requirements: Requirement[] }
  | { action: "stop"; lines: string[] };

export const canInstall = (host: Host) => host.isRoot && host.which("apt-get");

/** One line saying what to run by hand to provide a missing requirement. */
export function manualLine(requirement: Requirement, host: Host): string {
  const { aptPackage, alternative } = requirement;
  const advice = [
    aptPackage && host.which("apt-get") ? `run \`sudo apt-get install ${aptPackage}\`` : undefined,
    aptPackage && !host.which("apt-get")
      ? `install Debian's \`${aptPackage}\` package or its equivalent`
      : undefined,
    alternative,
  ].filter((part) => part !== undefined);
  return `npm test needs ${requirement.name} for ${requirement.purpose}: ${advice.join(", or ")}`;
}

/**
 * Decides what to do: missing things neither apt-get nor their own `provide` can bring here stop the run
 * before anything is installed.
 */
export async function planPrerequisites(host: Host, requirements = REQUIREMENTS): Promise<Plan> {
  const present = await Promise.all(requirements.map((requirement) => requirement.present(host)));
  const missing = requirements.filter((_, index) => !present[index]);
  if (missing.length === 0) return { action: "none" };
  const installable = canInstall(host);
  const manual = missing.filter(
    (requirement) => !(requirement.provide || (installable && requirement.aptPackage)),
  );
  if (manual.length > 0) return { action: "stop", lines: manual.map((r) => manualLine(r, host)) };
  return { action: "install", requirements: missing };
}

const APT_ARGS = ["-o", "DPkg::Lock::Timeout=300", "-qq"];
const lastLine = (output: string) => output.trim().split("\n").at(-1) ?? "";

async function aptGet(host: Host, args: string[]): Promise<string | undefined> {
  const result = await host.run("apt-get", [...APT_ARGS, ...args]);
  return result.code === 0 ? undefined : `\`apt-get ${args.join(" ")}\` failed: ${lastLine(result.output)}`;
}

async function install(host: Host, requirement: Requirement, log: (line: string) => void) {
  if (requirement.provide) {
    const failure = await requirement.provide(host, log);
    if (failure) return failure;
    const ok = await requirement.present(host);
    return ok ? undefined : `fetched ${requirement.name}, but npm test still finds no ${requirement.name}`;
  }
  const started = Date.now();
  const pkg = requirement.aptPackage ?? "";
  const failure = await aptGet(host, ["install", "-y", "--no-install-recommends", pkg]);
  if (failure) return failure;
  if (!(await requirement.present(host))) {
    return `installed ${pkg}, but npm test still finds no ${requirement.name}: ${manualLine(requirement, host)}`;
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  log(`installed ${pkg} with apt-get (${requirement.name}, for ${requirement.purpose}) in ${seconds} s`);
  return undefined;
}

/**
 * Finds or installs what npm test needs. Resolves to the lines to print and stop with (none: ready). Runs
 * `apt-get update` once, and only when a package is missing, before installing one package at a time.
 */
export async function ensurePrerequisites(opts: {
  host: Host;
  log: (line: string) => void;
  requirements?: Requirement[];
}): Promise<string[]> {
  const { host, log } = opts;
  const plan = await planPrerequisites(host, opts.requirements);
  if (plan.action === "none") return [];
  if (plan.action === "stop") return plan.lines;
  const packages = plan.requirements.flatMap((r) => (r.provide ? [] : [r.aptPackage ?? ""])).join(", ");
  if (packages !== "") {
    log(`npm test: ${packages} missing here; installing with apt-get (apt-get update first)…`);
    const updateFailure = await aptGet(host, ["update"]);
    if (updateFailure) return [updateFailure];
  }
  for (const requirement of plan.requirements) {
    const failure = await install(host, requirement, log);
    if (failure) return [failure];
  }
  return [];
}
