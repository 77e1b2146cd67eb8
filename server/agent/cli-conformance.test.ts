import { describe, expect, it } from "vitest";
import type { AgentConfig } from "./cli";
import { parseAgentArgs } from "./cli";
import { visibleGpus, withEnvironment } from "./cli-env";

/**
 * Every option string of hyperpodrun 1.1.3's parser (torch 2.11's get_args_parser + add_additional_hyperpod_args),
 * dumped from the installed package with
 *   python -c "from torch.distributed.run import get_args_parser; from hyperpod_elastic_agent.run import
 *   add_additional_hyperpod_args; p = get_args_parser(); add_additional_hyperpod_args(p); ..."
 * ("switch" = nargs 0). A sample value for each value flag that our agent must also accept.
 */
const HYPERPODRUN_1_1_3: [string[], "switch" | "value"][] = [
  [["--nnodes"], "value"],
  [["--nproc-per-node", "--nproc_per_node"], "value"],
  [["--rdzv-backend", "--rdzv_backend"], "value"],
  [["--rdzv-endpoint", "--rdzv_endpoint"], "value"],
  [["--rdzv-id", "--rdzv_id"], "value"],
  [["--rdzv-conf", "--rdzv_conf"], "value"],
  [["--standalone"], "switch"],
  [["--max-restarts", "--max_restarts"], "value"],
  [["--monitor-interval", "--monitor_interval"], "value"],
  [["--start-method", "--start_method"], "value"],
  [["--event-log-handler", "--event_log_handler"], "value"],
  [["--role"], "value"],
  [["-m", "--module"], "switch"],
  [["--no-python", "--no_python"], "switch"],
  [["--run-path", "--run_path"], "switch"],
  [["--log-dir", "--log_dir"], "value"],
  [["-r", "--redirects"], "value"],
  [["-t", "--tee"], "value"],
  [["--local-ranks-filter", "--local_ranks_filter"], "value"],
  [["--duplicate-stdout-filters", "--duplicate_stdout_filters"], "value"],
  [["--duplicate-stderr-filters", "--duplicate_stderr_filters"], "value"],
  [["--node-rank", "--node_rank"], "value"],
  [["--master-addr", "--master_addr"], "value"],
  [["--master-port", "--master_port"], "value"],
  [["--local-addr", "--local_addr"], "value"],
  [["--logs-specs", "--logs_specs"], "value"],
  [["--numa-binding", "--numa_binding"], "value"],
  [["--signals-to-handle", "--signals_to_handle"], "value"],
  [["--virtual-local-rank", "--virtual_local_rank"], "switch"],
  [["--shutdown-signal"], "value"],
  [["--shutdown-timeout"], "value"],
  [["--inprocess-restart"], "switch"],
  [["--inprocess-timeout"], "value"],
  [["--pre-train-script"], "value"],
  [["--pre-train-args"], "value"],
  [["--post-train-script"], "value"],
  [["--post-train-args"], "value"],
  [["--server-host"], "value"],
  [["--server-port"], "value"],
  [["--server-log-level"], "value"],
  [["--server-shutdown-timeout"], "value"],
];

/** A value hyperpodrun itself accepts for each value flag (defaults from its parser, or documented forms). */
const SAMPLE: Record<string, string> = {
  "--nnodes": "2:2",
  "--nproc-per-node": "2",
  "--max-restarts": "0",
  "--monitor-interval": "0.1",
  "--redirects": "3",
  "--tee": "3",
  "--node-rank": "0",
  "--master-port": "29500",
  "--shutdown-signal": "SIGTERM",
  "--shutdown-timeout": "15",
  "--inprocess-timeout": "30",
  "--server-port": "8080",
  "--server-shutdown-timeout": "300",
  "--pre-train-args": "a b",
  "--post-train-args": "a b",
};

function parsed(argv: string[]): AgentConfig {
  const result = parseAgentArgs(argv);
  if (result.kind !== "config") throw new Error(`${argv.join(" ")}: ${JSON.stringify(result)}`);
  return result.config;
}

describe("every hyperpodrun 1.1.3 flag parses", () => {
  const cases = HYPERPODRUN_1_1_3.flatMap(([names, kind]) => names.map((name) => [name, kind] as const));
  it.each(cases)("%s (%s)", (name, kind) => {
    const canonical = HYPERPODRUN_1_1_3.find(([names]) => names.includes(name))?.[0].at(-1) ?? name;
    const long = canonical.startsWith("--") ? canonical : name;
    const sample = SAMPLE[long.replaceAll("_", "-")] ?? SAMPLE[name] ?? "x";
    const argv =
      kind === "switch" ? [name, "train.py", "--lr", "1"] : [name, sample, "train.py", "--lr", "1"];
    const config = parsed(argv);
    expect(config.script).toBe("train.py");
    expect(config.scriptArgs).toEqual(["--lr", "1"]);
    if (kind === "value" && name.startsWith("--"))
      expect(parsed([`${name}=${sample}`, "train.py"]).script).toBe("train.py");
  });

  it("reads --nproc-per-node auto, cpu and gpu as torchrun does", () => {
    expect(parsed(["--nproc-per-node", "gpu", "t.py"]).nprocPerNodeMode).toBe("gpu");
    expect(parsed(["--nproc_per_node=auto", "t.py"]).nprocPerNodeMode).toBe("auto");
    expect(parseAgentArgs(["--nproc-per-node", "tpu", "t.py"])).toEqual({
      kind: "error",
      message: '--nproc-per-node: expected auto, cpu, gpu or an integer from 1 to 4096, got "tpu"',
    });
  });
});

describe("withEnvironment", () => {
  const run = (argv: string[], env: Record<string, string>) => {
    const result = withEnvironment(parsed(argv), { argv, env, cpus: 6 });
    if (!result.ok) throw new Error(result.error);
    return result.config;
  };

  it("resolves auto to the visible GPUs, else the CPU count; cpu to the CPU count; gpu to the GPUs", () => {
    expect(run(["--nproc-per-node", "auto", "t.py"], {}).nprocPerNode).toBe(6);
    expect(run(["--nproc-per-node", "auto", "t.py"], { CUDA_VISIBLE_DEVICES: "0,3" }).nprocPerNode).toBe(2);
    expect(run(["--nproc-per-node", "cpu", "t.py"], { CUDA_VISIBLE_DEVICES: "0" }).nprocPerNode).toBe(6);
    expect(run(["--nproc-per-node", "gpu", "t.py"], { CUDA_VISIBLE_DEVICES: "1,2,3" }).nprocPerNode).toBe(3);
    expect(run(["--nproc-per-node", "3", "t.py"], { CUDA_VISIBLE_DEVICES: "1" }).nprocPerNode).toBe(3);
    expect(visibleGpus({ CUDA_VISIBLE_DEVICES: "" })).toBe(0);
  });

  it("refuses gpu without GPUs, as torchrun", () => {
    const argv = ["--nproc-per-node", "gpu", "t.py"];
    expect(withEnvironment(parsed(argv), { argv, env: {}, cpus: 6 })).toEqual({
      ok: false,
      error: "--nproc-per-node gpu: Cuda is not available (CUDA_VISIBLE_DEVICES names no GPU)",
    });
  });

  it("takes the worker nice and the all-ranks opt-in from the environment; a flag given wins", () => {
    const env = { REBOUND_WORKER_NICE: "19", REBOUND_LOG_RULES_ALL_RANKS: "true" };
    expect(run(["t.py"], env)).toMatchObject({ workerNice: 19, logRulesAllRanks: true });
    expect(run(["--worker-nice", "5", "t.py"], env).workerNice).toBe(5);
    expect(run(["t.py"], {})).toMatchObject({ workerNice: 0, logRulesAllRanks: false });
    const argv = ["t.py"];
    expect(withEnvironment(parsed(argv), { argv, env: { REBOUND_WORKER_NICE: "25" }, cpus: 1 })).toEqual({
      ok: false,
      error: 'REBOUND_WORKER_NICE: expected an integer from 0 to 19, got "25"',
    });
  });

  it("takes the early worker restart from the environment too (hyperpodrun refuses the flag)", () => {
    expect(run(["t.py"], { REBOUND_EARLY_WORKER_RESTART: "1" }).earlyWorkerRestart).toBe(true);
    expect(
      run(["--early-worker-restart", "t.py"], { REBOUND_EARLY_WORKER_RESTART: "0" }).earlyWorkerRestart,
    ).toBe(true);
    expect(run(["t.py"], {}).earlyWorkerRestart).toBe(false);
    const argv = ["t.py"];
    expect(withEnvironment(parsed(argv), { argv, env: { REBOUND_EARLY_WORKER_RESTART: "yes" } })).toEqual({
      ok: false,
      error: 'REBOUND_EARLY_WORKER_RESTART: expected true, false, 1 or 0, got "yes"',
    });
  });
});
