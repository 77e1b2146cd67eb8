import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";

/**
 * AWS's unmodified `hyperpod-elastic-agent` (`hyperpodrun`) from PyPI, in a virtual environment under
 * `<cache>/<version>-torch<torch>/`, where `<cache>` is a package cache like pip's and npm's (it outlives a
 * fresh clone, so CI pays the install once per machine): `~/.cache/rebound/hyperpod-agent` (or under
 * XDG_CACHE_HOME), but `/var/cache/rebound/hyperpod-agent` (mode 0755, files world-readable) for root,
 * because a root operator runs local pods as an unprivileged user (server/cluster/local/pod-user.ts) that
 * cannot enter /root (mode 0700) to run a venv there. REBOUND_HYPERPOD_AGENT_DIR overrides either. The
 * venv is created on first use and reused after that (a marker file says the install finished; a half-made
 * one is made again). The wheels are kept beside it in `wheels/`, so a venv made again downloads nothing
 * (a venv cannot be moved: a new location re-creates it from the wheels).
 *
 * It needs PyTorch, and PyPI's Linux x86_64 torch is the CUDA build: `import torch` preloads cuBLAS, cuDNN,
 * NCCL… and fails without the nvidia-* wheels (checked with torch 2.11.0 installed --no-deps), so the full
 * set is installed (about 2.6 GB of wheels); the agent and its workers then run on the CPU.
 * Needs python3 with the venv module and pip (Debian: python3-venv python3-pip).
 */
export const HYPERPOD_AGENT_VERSION = "1.1.3";
/** The newest torch 1.1.3 accepts (`torch>=2.4.0,<2.12.0`), pinned so the install is the same every time. */
export const HYPERPOD_TORCH_VERSION = "2.11.0";

const AS_ROOT = process.getuid?.() === 0;
/**
 * The python the venv is made from (its `bin/python` links to it): for root the system's, as a pyenv or
 * similar python under /root is out of the pod user's reach; else the first python3 on PATH.
 */
const PYTHON = AS_ROOT && existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
const CACHE_HOME = AS_ROOT ? "/var/cache" : process.env.XDG_CACHE_HOME || path.join(homedir(), ".cache");
const BASE = process.env.REBOUND_HYPERPOD_AGENT_DIR || path.join(CACHE_HOME, "rebound", "hyperpod-agent");
const WHEELS = path.join(BASE, "wheels");
const OUTPUT_TAIL = 2000;

export type HyperPodAgent = {
  /** The venv's `hyperpodrun` console script. */
  hyperpodrun: string;
  /** The venv's python (for worker scripts that import the agent's modules). */
  python: string;
  /** How long this call spent installing (0 when the venv was already there). */
  installMs: number;
};

type Run = { code: number; output: string };

function run(command: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: "1" },
    });
    let output = "";
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-OUTPUT_TAIL);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.once("error", (error: NodeJS.ErrnoException) =>
      resolve({ code: error.code === "ENOENT" ? 127 : 1, output: String(error) }),
    );
    child.once("exit", (code) => resolve({ code: code ?? 1, output }));
  });
}

/** The line that says what went wrong: pip's last ERROR line, else the last line. */
function lastLine(output: string): string {
  const lines = output.split("\n").filter((line) => line.trim() !== "");
  return (lines.findLast((line) => /error/i.test(line)) ?? lines.at(-1) ?? "(no output)").trim();
}

/** Runs a step of the install; a failure is one line saying what to do, then the step's last line. */
async function step(what: { command: string; args: string[]; fix: string }): Promise<void> {
  const result = await run(what.command, what.args);
  if (result.code !== 0) {
    throw new Error(`hyperpod-elastic-agent install: ${what.fix} (${lastLine(result.output)})`);
  }
}

async function install(dir: string, requirements: string[]): Promise<void> {
  await step({
    command: PYTHON,
    args: ["--version"],
    fix: "python3 is not installed: apt-get install -y python3 python3-venv python3-pip",
  });
  await rm(dir, { recursive: true, force: true });
  await mkdir(WHEELS, { recursive: true });
  // Local pods of a root operator run as another user: it must reach and run the venv (whatever the umask).
  if (AS_ROOT) await chmod(BASE, 0o755);
  await step({
    command: PYTHON,
    args: ["-m", "venv", dir],
    fix: "python3 -m venv failed: apt-get install -y python3-venv python3-pip",
  });
  const pip = path.join(dir, "bin", "pip");
  // Wheels already in WHEELS are reused; missing ones come from PyPI (the agent's sdist is built into one).
  await step({
    command: pip,
    args: ["wheel", "--find-links", WHEELS, "--wheel-dir", WHEELS, ...requirements],
    fix: `pip could not fetch ${requirements.join(" ")} from PyPI`,
  });
  await step({
    command: pip,
    args: ["install", "--no-index", "--find-links", WHEELS, ...requirements],
    fix: `pip could not install ${requirements.join(" ")}`,
  });
}

/** The installed agent, installing it first when this machine does not have it yet. */
export async function ensureHyperPodAgent(
  opts: { version?: string; torch?: string } = {},
): Promise<HyperPodAgent> {
  const version = opts.version ?? HYPERPOD_AGENT_VERSION;
  const torch = opts.torch ?? HYPERPOD_TORCH_VERSION;
  const dir = path.join(BASE, `${version}-torch${torch}`);
  const marker = path.join(dir, "rebound-installed.json");
  const requirements = [`hyperpod-elastic-agent==${version}`, `torch==${torch}`];
  const agent = {
    hyperpodrun: path.join(dir, "bin", "hyperpodrun"),
    python: path.join(dir, "bin", "python"),
  };
  const stamp = JSON.stringify({ requirements, python: PYTHON });
  const installed = existsSync(marker) && existsSync(agent.hyperpodrun);
  if (installed && (await readFile(marker, "utf8")) === stamp) {
    return { ...agent, installMs: 0 };
  }
  const started = Date.now();
  await install(dir, requirements);
  await writeFile(marker, stamp);
  if (AS_ROOT) {
    await step({
      command: "chmod",
      args: ["-R", "a+rX", dir],
      fix: `chmod could not open ${dir} to all users`,
    });
  }
  return { ...agent, installMs: Date.now() - started };
}
