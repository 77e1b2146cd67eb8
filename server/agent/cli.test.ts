import { describe, expect, it } from "vitest";
import { type AgentConfig, parseAgentArgs, USAGE } from "./cli";
import { splitShellWords } from "./cli-values";

function config(argv: string[]): AgentConfig {
  const parsed = parseAgentArgs(argv);
  if (parsed.kind !== "config") throw new Error(`expected a config, got ${JSON.stringify(parsed)}`);
  return parsed.config;
}

function error(argv: string[]): string {
  const parsed = parseAgentArgs(argv);
  if (parsed.kind !== "error") throw new Error(`expected an error, got ${parsed.kind}`);
  return parsed.message;
}

describe("parseAgentArgs", () => {
  it("applies the defaults", () => {
    expect(config(["train.py"])).toEqual({
      nnodes: null,
      nprocPerNode: 1,
      nprocPerNodeMode: null,
      nprocPerNodeGiven: false,
      serverHost: "0.0.0.0",
      serverPort: 8080,
      // hyperpodrun 1.1.3 run.py: --shutdown-signal default SIGKILL, --shutdown-timeout default 15.
      shutdownSignal: "SIGKILL",
      shutdownTimeoutSeconds: 15,
      preTrainScript: null,
      preTrainArgs: [],
      postTrainScript: null,
      postTrainArgs: [],
      logDir: "/tmp/hyperpod",
      monitorIntervalMs: 250,
      noPython: false,
      module: false,
      maxRestarts: 0,
      runId: "none",
      tee: "none",
      inprocessRestart: false,
      inprocessTimeoutSeconds: null,
      earlyWorkerRestart: false,
      workerNice: 0,
      logRulesAllRanks: false,
      script: "train.py",
      scriptArgs: [],
      warnings: [],
    });
  });

  it("reads --flag value, --flag=value and snake_case names alike", () => {
    const a = config(["--nproc-per-node", "4", "--server_port=0", "--nnodes=2:2", "train.py"]);
    const b = config(["--nproc_per_node=4", "--server-port", "0", "--nnodes", "2:2", "train.py"]);
    expect(a).toEqual(b);
    expect(a).toMatchObject({ nprocPerNode: 4, serverPort: 0, nnodes: "2:2" });
  });

  it("gives everything after the script to the script, flags included", () => {
    const parsed = config(["--log-dir", "/logs", "train.ts", "--epochs=3", "--nproc-per-node", "x"]);
    expect(parsed).toMatchObject({
      logDir: "/logs",
      script: "train.ts",
      scriptArgs: ["--epochs=3", "--nproc-per-node", "x"],
    });
    expect(config(["--", "-weird.py", "a"])).toMatchObject({ script: "-weird.py", scriptArgs: ["a"] });
  });

  it("opts in to faulting on every local rank's log rules with --log-rules-all-ranks", () => {
    expect(config(["--log-rules-all-ranks", "t.py"]).logRulesAllRanks).toBe(true);
    expect(config(["--log_rules_all_ranks", "t.py"]).logRulesAllRanks).toBe(true);
    expect(parseAgentArgs(["--log-rules-all-ranks=1", "t.py"])).toEqual({
      kind: "error",
      message: "--log-rules-all-ranks takes no value",
    });
  });

  it("reads the hyperpodrun flags", () => {
    const parsed = config([
      "--shutdown-signal=SIGTERM",
      "--shutdown-timeout",
      "30",
      "--pre-train-script=/w/echo.sh",
      "--pre-train-args='Pre-training script' --x=\"a b\"",
      "--post-train-script",
      "/w/post.py",
      "--monitor-interval-ms",
      "100",
      "--tee=3",
      "--rdzv-id",
      "job-1",
      "--max-restarts=3",
      "train.py",
    ]);
    expect(parsed).toMatchObject({
      shutdownSignal: "SIGTERM",
      shutdownTimeoutSeconds: 30,
      preTrainScript: "/w/echo.sh",
      preTrainArgs: ["Pre-training script", "--x=a b"],
      postTrainScript: "/w/post.py",
      monitorIntervalMs: 100,
      tee: "both",
      runId: "job-1",
      maxRestarts: 3,
    });
  });

  it("accepts the signal names SIGUSR1, usr1 and INT", () => {
    expect(config(["--shutdown-signal", "usr1", "t.py"]).shutdownSignal).toBe("SIGUSR1");
    expect(config(["--shutdown-signal=INT", "t.py"]).shutdownSignal).toBe("SIGINT");
  });

  it("accepts torchrun and hyperpodrun flags that have no effect here", () => {
    const parsed = config([
      "--rdzv-backend",
      "hyperpod",
      "--rdzv_endpoint=x:1",
      "--standalone",
      "--redirect",
      "3",
      "--server-log-level",
      "warning",
      "--monitor-interval=5",
      "t.py",
    ]);
    expect(parsed.script).toBe("t.py");
  });

  it("runs python modules and executables like torchrun", () => {
    expect(config(["-m", "pkg.train"])).toMatchObject({ module: true, script: "pkg.train" });
    expect(config(["--no-python", "./run.sh"])).toMatchObject({ noPython: true, script: "./run.sh" });
    expect(error(["--no-python", "-m", "x"])).toBe("--no-python and --module cannot be used together");
  });

  it("reads in-process restart and its timeout, as hyperpodrun", () => {
    expect(config(["--inprocess-restart", "--inprocess-timeout", "30", "t.py"])).toMatchObject({
      inprocessRestart: true,
      inprocessTimeoutSeconds: 30,
      warnings: [],
    });
    expect(config(["t.py"]).inprocessTimeoutSeconds).toBeNull();
    expect(error(["--inprocess-timeout=soon", "t.py"])).toBe(
      '--inprocess-timeout: expected a number of seconds >= 0, got "soon"',
    );
  });

  it("restarts a failed node's workers early only when asked (--early-worker-restart), not as hyperpodrun", () => {
    expect(config(["--inprocess-restart", "t.py"]).earlyWorkerRestart).toBe(false);
    expect(config(["--inprocess-restart", "--early-worker-restart", "t.py"])).toMatchObject({
      inprocessRestart: true,
      earlyWorkerRestart: true,
    });
    expect(config(["--early_worker_restart", "t.py"]).earlyWorkerRestart).toBe(true);
    expect(error(["--early-worker-restart=yes", "t.py"])).toBe("--early-worker-restart takes no value");
    expect(USAGE).toContain("--early-worker-restart");
  });

  it("refuses bad flags with one clear message", () => {
    expect(error(["--bogus", "t.py"])).toBe("unknown flag --bogus");
    expect(error(["--nproc-per-node", "0", "t.py"])).toBe(
      '--nproc-per-node: expected auto, cpu, gpu or an integer from 1 to 4096, got "0"',
    );
    expect(error(["--nproc-per-node=many", "t.py"])).toContain('got "many"');
    expect(error(["--server-port", "70000", "t.py"])).toContain("expected an integer from 0 to 65535");
    expect(error(["--worker-nice", "20", "t.py"])).toContain("expected an integer from 0 to 19");
    expect(error(["--shutdown-signal", "SIGFOO", "t.py"])).toContain("expected a signal name");
    expect(error(["--shutdown-timeout=-1", "t.py"])).toContain("expected a number of seconds");
    expect(error(["--nnodes", "1:4", "t.py"])).toContain("elastic cluster size is currently not supported");
    expect(error(["--nnodes", "x", "t.py"])).toContain("expected a node count");
    expect(error(["--tee", "5", "t.py"])).toContain("expected 0, 1, 2 or 3");
    expect(error(["--no-python=1", "t.py"])).toBe("--no-python takes no value");
    expect(error(["--log-dir"])).toBe("--log-dir expects a value");
    expect(error(["--log-dir", "--nnodes", "1", "t.py"])).toBe("--log-dir expects a value");
    expect(error(["--monitor-interval-ms", "5", "t.py"])).toContain("from 10 to 60000");
    expect(error(["--nnodes", "1"])).toBe("missing the training script to run");
    expect(error(["--constructor", "t.py"])).toBe("unknown flag --constructor");
  });

  it("prints help", () => {
    expect(parseAgentArgs(["--help"]).kind).toBe("help");
    expect(parseAgentArgs(["-h", "t.py"]).kind).toBe("help");
  });
});

describe("splitShellWords", () => {
  it.each([
    ["", []],
    ["a b  c", ["a", "b", "c"]],
    ["'Pre-training script'", ["Pre-training script"]],
    ['--x="a b" y', ["--x=a b", "y"]],
    ['a\\ b "c\\"d"', ["a b", 'c"d']],
    ["'a\\b'", ["a\\b"]],
    ["''", [""]],
  ])("splits %j", (input, words) => {
    expect(splitShellWords(input)).toEqual({ ok: true, value: words });
  });

  it("refuses an unterminated quote", () => {
    expect(splitShellWords("'abc")).toEqual({ ok: false, error: `unmatched ' in "'abc"` });
  });
});
