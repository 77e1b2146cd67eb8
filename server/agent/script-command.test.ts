import { describe, expect, it } from "vitest";
import { defaultRunner, scriptCommand } from "./script-command";

const runner = { python: "python3", node: "/usr/bin/node", tsxLoader: "file:///x/tsx/loader.mjs" };

describe("scriptCommand", () => {
  it.each([
    ["train.py", "python3", ["train.py", "--a"]],
    ["train.ts", "/usr/bin/node", ["--import", "file:///x/tsx/loader.mjs", "train.ts", "--a"]],
    ["train.mts", "/usr/bin/node", ["--import", "file:///x/tsx/loader.mjs", "train.mts", "--a"]],
    ["train.js", "/usr/bin/node", ["train.js", "--a"]],
    ["train.mjs", "/usr/bin/node", ["train.mjs", "--a"]],
    ["./run.sh", "./run.sh", ["--a"]],
    ["/bin/trainer", "/bin/trainer", ["--a"]],
  ])("runs %s with %s", (script, command, args) => {
    expect(scriptCommand({ script, args: ["--a"], runner })).toEqual({ command, args });
  });

  it("executes directly with --no-python and runs a module with -m", () => {
    expect(
      scriptCommand({ script: "t.py", args: [], mode: { noPython: true, module: false }, runner }),
    ).toEqual({
      command: "t.py",
      args: [],
    });
    expect(
      scriptCommand({ script: "pkg.t", args: ["x"], mode: { noPython: false, module: true }, runner }),
    ).toEqual({
      command: "python3",
      args: ["-m", "pkg.t", "x"],
    });
  });

  it("resolves the tsx loader to an absolute URL", () => {
    expect(defaultRunner().tsxLoader).toMatch(/^file:\/\/\/.*tsx.*\.mjs$/);
  });
});
