import { describe, expect, it } from "vitest";
import { parseAgentArgs } from "./cli";
import { withEnvironment } from "./cli-env";

/**
 * Ranks per pod as hyperpodrun 1.1.3 picks them (torch's `get_args_parser`: `--nproc-per-node` is an
 * `env` action, so PET_NPROC_PER_NODE is its default, "1" without either; `determine_local_world_size`
 * reads auto/cpu/gpu): the operator sets PET_NPROC_PER_NODE to `spec.nprocPerNode` in every pod, so a
 * command that names no count runs the spec's, and a count in the command wins.
 */
const CPUS = 6;

function ranks(argv: string[], env: Record<string, string>) {
  const parsed = parseAgentArgs(argv);
  if (parsed.kind !== "config") throw new Error(JSON.stringify(parsed));
  const result = withEnvironment(parsed.config, { argv, env, cpus: CPUS });
  return result.ok ? result.config.nprocPerNode : result.error;
}

describe("ranks per pod: the command's --nproc-per-node, else PET_NPROC_PER_NODE (spec.nprocPerNode)", () => {
  const noFlag = ["train.py", "--lr", "1"];
  const flag = (value: string) => ["--nproc-per-node", value, "train.py"];
  it.each([
    ['spec "2", no flag', noFlag, { PET_NPROC_PER_NODE: "2" }, 2],
    ['spec "2", --nproc-per-node 1: the flag wins', flag("1"), { PET_NPROC_PER_NODE: "2" }, 1],
    ['spec "2", --nproc_per_node=3', ["--nproc_per_node=3", "t.py"], { PET_NPROC_PER_NODE: "2" }, 3],
    ['spec "auto", no flag, no GPUs: the CPU count', noFlag, { PET_NPROC_PER_NODE: "auto" }, CPUS],
    [
      'spec "auto", no flag, 2 GPUs: a rank per GPU',
      noFlag,
      { PET_NPROC_PER_NODE: "auto", CUDA_VISIBLE_DEVICES: "0,1" },
      2,
    ],
    [
      'spec "cpu", no flag, with GPUs',
      noFlag,
      { PET_NPROC_PER_NODE: "cpu", CUDA_VISIBLE_DEVICES: "0" },
      CPUS,
    ],
    ['spec "gpu", no flag, 3 GPUs', noFlag, { PET_NPROC_PER_NODE: "gpu", CUDA_VISIBLE_DEVICES: "1,2,3" }, 3],
    [
      'spec "8", --nproc-per-node auto with 4 GPUs',
      flag("auto"),
      { PET_NPROC_PER_NODE: "8", CUDA_VISIBLE_DEVICES: "0,1,2,3" },
      4,
    ],
    ["neither: 1, torchrun's default", noFlag, {}, 1],
    [
      "a count among the script's arguments is the script's",
      ["t.py", "--nproc-per-node", "4"],
      { PET_NPROC_PER_NODE: "2" },
      2,
    ],
    [
      'spec "gpu" without GPUs: an error naming the variable, as torchrun refuses it',
      noFlag,
      { PET_NPROC_PER_NODE: "gpu" },
      "PET_NPROC_PER_NODE=gpu: Cuda is not available (CUDA_VISIBLE_DEVICES names no GPU)",
    ],
    [
      "a value torchrun does not know: an error naming the variable",
      noFlag,
      { PET_NPROC_PER_NODE: "tpu" },
      'PET_NPROC_PER_NODE: expected auto, cpu, gpu or an integer from 1 to 4096, got "tpu"',
    ],
    [
      'set but empty: an error, as torchrun\'s int("")',
      noFlag,
      { PET_NPROC_PER_NODE: "" },
      'PET_NPROC_PER_NODE: expected auto, cpu, gpu or an integer from 1 to 4096, got ""',
    ],
    ["a bad variable does not matter beside a flag", flag("2"), { PET_NPROC_PER_NODE: "tpu" }, 2],
  ] as const)("%s", (_name, argv, env, expected) => {
    expect(ranks([...argv], env)).toBe(expected);
  });
});
