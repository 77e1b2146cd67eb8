import { describe, expect, it } from "vitest";
import { jobSize } from "./job-size";
import { FULL_JOB_YAML, MINIMAL_JOB_YAML, mutate } from "./job-spec.fixtures";
import type { HyperPodPyTorchJob } from "./job-spec.schema";
import { parseJobYaml } from "./parse-job";

function jobFrom(yaml: string): HyperPodPyTorchJob {
  const result = parseJobYaml(yaml);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.job;
}

const TWO_SPECS = `apiVersion: sagemaker.amazonaws.com/v1
kind: HyperPodPyTorchJob
metadata: { name: mixed }
spec:
  nprocPerNode: gpu
  replicaSpecs:
    - name: base
      replicas: 2
      spares: 2
      template:
        spec:
          containers:
            - { name: trainer, resources: { requests: { nvidia.com/gpu: "4" } } }
            - { name: sidecar, resources: { limits: { nvidia.com/gpu: 1 } } }
    - name: elastic
      replicas: 3
      maxReplicas: 6
      template:
        spec:
          containers:
            - { name: trainer, resources: { limits: { nvidia.com/gpu: 8 }, requests: { nvidia.com/gpu: 2 } } }
`;

describe("jobSize", () => {
  it("counts nodes, ranks and GPUs of the full example", () => {
    expect(jobSize(jobFrom(FULL_JOB_YAML))).toEqual({
      nodes: 4,
      spareNodes: 1,
      ranksPerNode: 8,
      ranks: 32,
      gpusPerPod: 8,
      gpus: 32,
      replicaSpecs: [{ name: "workers", replicas: 4, spares: 1, gpusPerPod: 8 }],
    });
  });

  it("sums several replica specs, prefers limits over requests and leaves ranks unknown for 'gpu'", () => {
    expect(jobSize(jobFrom(TWO_SPECS))).toEqual({
      nodes: 5,
      spareNodes: 2,
      ranksPerNode: null,
      ranks: null,
      gpusPerPod: null,
      gpus: 2 * 5 + 3 * 8,
      replicaSpecs: [
        { name: "base", replicas: 2, spares: 2, gpusPerPod: 5 },
        { name: "elastic", replicas: 3, spares: 0, gpusPerPod: 8 },
      ],
    });
  });

  it("treats a job without GPU resources as zero GPUs and zero default replicas as zero nodes", () => {
    const size = jobSize(
      jobFrom(mutate(MINIMAL_JOB_YAML, "      template:", "      replicas: 2\n      template:")),
    );
    expect(size).toMatchObject({ nodes: 2, ranks: null, gpusPerPod: 0, gpus: 0 });
    expect(jobSize(jobFrom(MINIMAL_JOB_YAML))).toMatchObject({ nodes: 0, gpus: 0 });
  });
});

/**
 * A two-pod job: `nproc` as spec.nprocPerNode (omitted when undefined), `command`, GPUs per pod, and the
 * container's own `env` (a YAML flow list).
 */
function twoPods(opts: { nproc?: string; command: string; gpus?: number; env?: string }): HyperPodPyTorchJob {
  const nproc = opts.nproc === undefined ? "" : `  nprocPerNode: "${opts.nproc}"\n`;
  const resources =
    opts.gpus === undefined ? "" : `, resources: { limits: { nvidia.com/gpu: ${opts.gpus} } }`;
  return jobFrom(`apiVersion: sagemaker.amazonaws.com/v1
kind: HyperPodPyTorchJob
metadata: { name: ranks }
spec:
${nproc}  replicaSpecs:
    - name: pods
      replicas: 2
      template:
        spec:
          containers:
            - { name: main, command: ${opts.command}${resources}${opts.env ? `, env: ${opts.env}` : ""} }
`);
}

describe("ranks per node (nprocPerNode as HyperPod and torchrun read it)", () => {
  const plain = "[hyperpodrun, train.py]";
  it.each([
    ["absent, no GPUs: only the node's CPU count can tell", { command: plain }, null],
    ["absent (auto) with 4 GPUs a pod", { command: plain, gpus: 4 }, 4],
    ["auto, no GPUs", { nproc: "auto", command: plain }, null],
    ["auto with GPUs", { nproc: "auto", command: plain, gpus: 8 }, 8],
    ["gpu with GPUs", { nproc: "gpu", command: plain, gpus: 2 }, 2],
    ["gpu without GPUs", { nproc: "gpu", command: plain }, null],
    ["cpu", { nproc: "cpu", command: plain, gpus: 8 }, null],
    ['"2"', { nproc: "2", command: plain }, 2],
    ["a --nproc-per-node flag in the command", { command: "[hyperpodrun, --nproc-per-node, '2', t.py]" }, 2],
    [
      "a --nproc_per_node=3 flag over nprocPerNode",
      { nproc: "8", command: "[torchrun, --nproc_per_node=3, t.py]" },
      3,
    ],
    ["a flag inside sh -c", { command: '[sh, -c, "exec hyperpodrun --nproc-per-node 4 t.py"]' }, 4],
    [
      "a flag given as a variable falls back to nprocPerNode",
      { nproc: "2", command: "[hyperpodrun, '--nproc-per-node=$N', t.py]" },
      2,
    ],
    [
      "a flag 'cpu' over nprocPerNode \"2\": the flag wins, and only the node's CPU count can tell",
      { nproc: "2", command: "[hyperpodrun, --nproc-per-node=cpu, t.py]" },
      null,
    ],
    [
      "the container's own PET_NPROC_PER_NODE over nprocPerNode (it wins over the operator's)",
      { nproc: "2", command: plain, env: '[{ name: PET_NPROC_PER_NODE, value: "3" }]' },
      3,
    ],
    [
      "a flag over the container's PET_NPROC_PER_NODE",
      {
        command: "[hyperpodrun, --nproc-per-node=1, t.py]",
        env: '[{ name: PET_NPROC_PER_NODE, value: "3" }]',
      },
      1,
    ],
    [
      "a flag 'gpu' reads the pod's GPUs",
      { command: "[hyperpodrun, --nproc-per-node=gpu, t.py]", gpus: 2 },
      2,
    ],
  ] as const)("%s", (_name, opts, expected) => {
    const size = jobSize(twoPods(opts));
    expect(size.ranksPerNode).toBe(expected);
    expect(size.ranks).toBe(expected === null ? null : 2 * expected);
  });
});
