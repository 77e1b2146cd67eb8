/**
 * What a local pod takes from this machine's environment: an allow-list, nothing else. A container gets
 * its image's environment, its YAML's `env` and what HyperPod's operator injects; a local pod plays a
 * container on this machine, so "its image" is the few variables below that make a process run here as it
 * would in a terminal. Everything else the operator (or the console, or `npm start`) holds stays out:
 * DATABASE_URL with its password, REBOUND_* and OPERATOR_* settings, tokens, cloud credentials, proxies
 * (a proxy URL may hold a password), NODE_OPTIONS (the operator's own heap cap and loader hooks, not the
 * trainer's: the agent loads what it needs itself, and a job that wants NODE_OPTIONS sets it in its `env`).
 * A job needs anything more? It says so in its container's `env`, as it would on Kubernetes.
 *
 * The one place the local back end reads process.env.
 */

/** Names passed through as they are, each with why a local pod needs it. */
export const POD_HOST_ENV: Readonly<Record<string, string>> = {
  PATH: "finds the container command's programs (python3, the trainer's tools), as an image's PATH does",
  HOME: "the user's home, for their Python/CUDA caches; replaced by the pod's own home when pods run as the pod user (pod-user.ts)",
  TMPDIR: "where temporary files go (the agent's TypeScript loader keeps its compile cache there)",
  TZ: "timestamps in the trainer's output in this machine's time zone",
  LANG: "the locale: how the trainer encodes and prints text",
  LANGUAGE: "the locale's message languages",
  LD_LIBRARY_PATH:
    "where this machine's CUDA/NCCL libraries are (a CUDA image sets it the same way); never a secret",
};

/** Name patterns passed through: the locale categories (LC_ALL, LC_CTYPE, …), like LANG. */
export const POD_HOST_ENV_PATTERNS: readonly RegExp[] = [/^LC_[A-Z_]+$/];

export const isPodHostVariable = (name: string): boolean =>
  Object.hasOwn(POD_HOST_ENV, name) || POD_HOST_ENV_PATTERNS.some((pattern) => pattern.test(name));

/** The allow-listed part of an environment, unset entries dropped. */
export function podHostEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && isPodHostVariable(name)) kept[name] = value;
  }
  return kept;
}

/** An environment for child_process.spawn, whose env type (augmented by Next.js) insists on NODE_ENV. */
export const spawnableEnv = (env: Record<string, string>): NodeJS.ProcessEnv =>
  ({ ...env }) as NodeJS.ProcessEnv;

/** This machine's environment as a local pod may see it (POD_HOST_ENV). */
export function hostEnvironment(): NodeJS.ProcessEnv {
  return spawnableEnv(podHostEnv(process.env));
}
