import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ABUSE_PARTS, ABUSE_USAGE, parseAbuseArgs } from "./config";

const ROOT = path.resolve(import.meta.dirname, "../..");

describe("bench:abuse's arguments", () => {
  it("runs every part with the defaults when given none", () => {
    expect(parseAbuseArgs([])).toEqual({
      help: false,
      config: {
        parts: [...ABUSE_PARTS],
        seconds: 10,
        bodies: 3,
        bodyMb: 200,
        attempts: 50,
        signIns: 20,
        crashes: 20,
      },
    });
  });

  it("names the signin part and its flags in the usage", () => {
    expect(ABUSE_PARTS).toEqual(["bodies", "rules", "signin", "shadow"]);
    expect(ABUSE_USAGE).toContain(
      "--part NAME[,NAME...]  run only these parts: bodies, rules, signin, shadow",
    );
    expect(ABUSE_USAGE).toMatch(/--crashes N .*\(default 20\)/);
    expect(ABUSE_USAGE).toMatch(/--attempts N .*\(default 50\)/);
    expect(ABUSE_USAGE).toMatch(/--sign-ins N .*\(default 20\)/);
  });

  it("reads each flag, parts in the bench's order", () => {
    expect(
      parseAbuseArgs([
        ...["--part", "signin,rules,bodies", "--seconds=3", "--bodies", "2", "--body-mb", "50"],
        ...["--attempts", "7", "--sign-ins=4", "--crashes", "5"],
      ]),
    ).toEqual({
      help: false,
      config: {
        parts: ["bodies", "rules", "signin"],
        seconds: 3,
        bodies: 2,
        bodyMb: 50,
        attempts: 7,
        signIns: 4,
        crashes: 5,
      },
    });
    expect(parseAbuseArgs(["--part", "rules"])).toMatchObject({ config: { parts: ["rules"] } });
    expect(parseAbuseArgs(["--part", "signin,signin"])).toMatchObject({ config: { parts: ["signin"] } });
    expect(parseAbuseArgs(["--part", "shadow"])).toMatchObject({ config: { parts: ["shadow"] } });
  });

  it.each([["--help"], ["-h"], ["--seconds", "3", "--help"]])("asks for the usage with %s", (...argv) => {
    expect(parseAbuseArgs(argv)).toEqual({ help: true });
  });

  it.each([
    [["--verbose"], "Unknown option '--verbose'"],
    [["rules"], "Unexpected argument 'rules'"],
    [["--seconds"], "Option '--seconds <value>' argument missing"],
    [["--seconds", "0"], "--seconds: expected an integer >= 1, got 0"],
    [["--body-mb", "1"], "--body-mb: expected an integer >= 2, got 1"],
    [["--attempts", "0"], "--attempts: expected an integer >= 1, got 0"],
    [["--sign-ins", "2.5"], "--sign-ins: expected an integer >= 1, got 2.5"],
    [["--crashes", "0"], "--crashes: expected an integer >= 1, got 0"],
    [["--part", "shadows"], "--part: expected one or more of bodies, rules, signin, shadow, got shadows"],
    [
      ["--part", "signin,login"],
      "--part: expected one or more of bodies, rules, signin, shadow, got signin,login",
    ],
  ])("refuses %j naming it", (argv, message) => {
    expect(() => parseAbuseArgs(argv)).toThrow(new Error(message));
  });
});

describe("npm run bench:abuse", () => {
  const run = (...args: string[]) =>
    spawnSync(path.join(ROOT, "node_modules/.bin/tsx"), ["bench/abuse.ts", ...args], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 30_000,
    });

  it("prints its usage for --help and exits 0 without starting the bench", () => {
    const result = run("--help");
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(ABUSE_USAGE);
    // The bench's own log lines ("[bench:abuse +0.0s] bodies…") go to stderr once it starts.
    expect(result.stderr).toBe("");
  });

  it("exits 2 on an unknown flag, naming it, without starting the bench", () => {
    const result = run("--no-such-flag");
    expect(result.status).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      "bench:abuse: Unknown option '--no-such-flag' (see npm run bench:abuse -- --help)\n",
    );
  });
});
