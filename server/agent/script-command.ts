import { extname } from "node:path";

/**
 * How a script is run (the training script and the pre/post-train hooks): `.py` with python3, `.ts`/`.mts`
 * with node and the tsx loader, `.js`/`.mjs`/`.cjs` with node, anything else executed directly. `--no-python`
 * executes the script directly whatever its extension and `-m`/`--module` runs `python3 -m <module>`, as
 * torchrun does.
 */

export type Command = { command: string; args: string[] };

export type ScriptRunner = { python: string; node: string; tsxLoader: string };

/** The tsx loader as an absolute file URL, so workers do not depend on their working directory. */
export function defaultRunner(): ScriptRunner {
  return { python: "python3", node: process.execPath, tsxLoader: import.meta.resolve("tsx") };
}

export function scriptCommand(input: {
  script: string;
  args: readonly string[];
  mode?: { noPython: boolean; module: boolean };
  runner: ScriptRunner;
}): Command {
  const { script, runner } = input;
  const args = [...input.args];
  if (input.mode?.module) return { command: runner.python, args: ["-m", script, ...args] };
  if (input.mode?.noPython) return { command: script, args };
  switch (extname(script).toLowerCase()) {
    case ".py":
      return { command: runner.python, args: [script, ...args] };
    case ".ts":
    case ".mts":
      return { command: runner.node, args: ["--import", runner.tsxLoader, script, ...args] };
    case ".js":
    case ".mjs":
    case ".cjs":
      return { command: runner.node, args: [script, ...args] };
    default:
      return { command: script, args };
  }
}
