import { PATTERNS, yamlQuoted } from "./template-patterns";
import type { PolicyTemplate } from "./types";

/**
 * Policies shipped with the product. Their patterns (template-patterns.ts) are measured on the corpus of
 * public log lines in log-corpus/ (log-corpus.test.ts); each template also carries real lines it fires on
 * and lines it stays quiet on, from that corpus, which templates.test.ts dry-runs and the real
 * hyperpod-elastic-agent runs (server/agent/template-conformance.integration-test.ts).
 */

const RESTART = `restartPolicy:
  evalPeriodSeconds: 3600
  numRestartBeforeFullJobRestart: 3
  maxFullJobRestarts: 1
jobMaxRetryCount: 10
`;

type RuleFields = Record<string, string | number | boolean>;

/** One rule as YAML: its name, its pattern (single-quoted) and its other fields in order. */
function rule(name: string, pattern: string, fields: RuleFields): string {
  const rest = Object.entries(fields).map(([key, value]) => `    ${key}: ${value}\n`);
  return `  - name: ${name}\n    logPattern: ${yamlQuoted(pattern)}\n${rest.join("")}`;
}

const template = (t: Omit<PolicyTemplate, "yaml"> & { rules: string }): PolicyTemplate => ({
  id: t.id,
  name: t.name,
  summary: t.summary,
  yaml: `# ${t.name}: ${t.summary}\n${RESTART}logMonitoringConfiguration:\n${t.rules}`,
  samples: t.samples,
});

const SLOW_TOKENS = { metricThreshold: 1000, operator: "lt", metricEvaluationDataPoints: 5 };

const at = (clock: string, text: string) => `2026-03-01T${clock}Z ${text}`;

export const POLICY_TEMPLATES: PolicyTemplate[] = [
  template({
    id: "hang",
    name: "Hang (no progress)",
    summary:
      "faults the job when no training progress (a step line, a Trainer log, a progress bar) is logged for 5 minutes",
    rules: rule("StepHang", PATTERNS.progress, { expectedRecurringFrequencyInSeconds: 300 }),
    samples: {
      fires: [
        "[rank0]:[titan] 2025-06-16 22:30:50,322 - root - INFO - step: 200  loss:  6.1384  memory: 49.66GiB(52.28%)  tps: 5,856  tflops: 339.16  mfu: 34.29%",
        "[rank0]:[titan] 2025-06-16 22:31:04,970 - root - INFO - step: 210  loss:  6.0388  memory: 49.66GiB(52.28%)  tps: 5,593  tflops: 323.92  mfu: 32.75%",
        "[rank0]:[titan] 2025-06-16 22:37:59,261 - root - INFO - [GC] Peforming periodical GC collection. 0.06 seconds.",
      ],
      quiet: [
        "[rank0]:[titan] 2025-06-16 22:30:50,322 - root - INFO - step: 200  loss:  6.1384  memory: 49.66GiB(52.28%)  tps: 5,856  tflops: 339.16  mfu: 34.29%",
        "[rank0]:[titan] 2025-06-16 22:31:59,261 - root - INFO - [GC] Peforming periodical GC collection. 0.06 seconds.",
        "[rank0]:[titan] 2025-06-16 22:32:00,846 - root - INFO - step: 250  loss:  5.8383  memory: 49.66GiB(52.28%)  tps: 5,862  tflops: 339.48  mfu: 34.33%",
      ],
    },
  }),
  template({
    id: "start-cut-off",
    name: "Start cut-off",
    summary: "faults the job when no training progress has been logged 15 minutes after the start",
    rules: rule("StartCutOff", PATTERNS.progress, { expectedStartCutOffInSeconds: 900 }),
    samples: {
      fires: [
        at("12:00:00", "Loading checkpoint shards:  50%|█████     | 2/4 [00:05<00:05,  2.61s/it]"),
        at("12:10:00", "Loading checkpoint shards: 100%|██████████| 4/4 [00:10<00:00,  2.61s/it]"),
        at("12:16:00", "  Total optimization steps = 1,000"),
      ],
      quiet: [
        at("12:00:00", "Loading checkpoint shards: 100%|██████████| 4/4 [00:10<00:00,  2.61s/it]"),
        at("12:05:00", "{'loss': 2.0491, 'grad_norm': 1.3, 'learning_rate': 1e-05, 'epoch': 0.01}"),
      ],
    },
  }),
  template({
    id: "nan-loss",
    name: "NaN loss or divergence",
    summary:
      "faults the job on a NaN or infinite loss or gradient norm, a NaN assertion, or a loss scale collapsed to its minimum",
    rules: rule("NaNLoss", PATTERNS.nanLoss, { faultOnMatch: true }),
    samples: {
      fires: [
        at("12:00:00", "step: 200  loss:  nan"),
        at("12:00:01", "{'loss': 2.0491, 'grad_norm': nan, 'learning_rate': 1e-05, 'epoch': 0.01}"),
      ],
      quiet: [
        at("12:00:00", "step: 200  loss:  6.1384"),
        at("12:00:01", "logging_nan_inf_filter=True, nan_to_num=False"),
        at("12:00:02", "iteration 10 | lm loss: 2.382640E+00 | loss scale: 65536.0"),
      ],
    },
  }),
  template({
    id: "loss-spike",
    name: "Loss spike",
    summary:
      "faults the job when the loss stays above 10 for 3 logged steps in a row, from step 100 on (the first steps of a large vocabulary start above 10)",
    rules: rule("LossSpike", PATTERNS.lossSpike, {
      metricThreshold: 10,
      operator: "gt",
      metricEvaluationDataPoints: 3,
    }),
    samples: {
      fires: [
        at("12:00:00", "step: 500  loss:  2.1000"),
        at("12:00:10", "step: 501  loss:  25.400"),
        at("12:00:20", "iteration      502/  500000 | lm loss: 3.104000E+01"),
        at("12:00:30", "step: 503  loss:  40.112"),
      ],
      quiet: [
        at("12:00:00", "step: 1  loss:  12.2500"),
        at("12:00:10", "step: 2  loss:  11.9800"),
        at("12:00:20", "step: 3  loss:  11.1200"),
        at("12:00:30", "step: 501  loss:  12.400"),
        at("12:00:40", "step: 502  loss:  2.0500"),
      ],
    },
  }),
  template({
    id: "low-throughput",
    name: "Low throughput",
    summary: "faults the job when throughput stays below 1,000 tokens/s for 5 reports in a row",
    // Two rules, one per way the figure is printed: `tps: 820` and `Throughput: 820 tokens/s`.
    rules:
      rule("LowThroughput", PATTERNS.lowThroughput, SLOW_TOKENS) +
      rule("LowThroughputUnit", PATTERNS.lowThroughputUnit, SLOW_TOKENS),
    samples: {
      fires: [
        at("12:00:00", "step: 10  loss: 3.1  tps: 820"),
        at("12:00:10", "step: 11  loss: 3.1  tps: 790"),
        at("12:00:20", "step: 12  loss: 3.0  tps: 801"),
        at("12:00:30", "step: 13  loss: 3.0  tps: 640"),
        at("12:00:40", "step: 14  loss: 3.0  tps: 700"),
      ],
      quiet: [
        "[rank0]:[titan] 2026-05-18 16:04:46,338 - root - INFO - step: 14  loss:  3.24405  grad_norm:  0.8319  memory:  9.46GiB(64.99%)  tps: 7,282  tflops: 0.52  mfu: 0.17%",
        "[rank0]:[titan] 2026-05-18 16:04:47,456 - root - INFO - step: 15  loss:  3.10680  grad_norm:  0.8587  memory:  9.46GiB(64.99%)  tps: 7,334  tflops: 0.53  mfu: 0.17%",
        "[rank0]:[titan] 2026-05-18 16:04:48,577 - root - INFO - step: 16  loss:  3.05047  grad_norm:  0.5443  memory:  9.46GiB(64.99%)  tps: 7,313  tflops: 0.52  mfu: 0.17%",
        "[rank0]:[titan] 2026-05-18 16:04:49,702 - root - INFO - step: 17  loss:  3.14459  grad_norm:  0.5303  memory:  9.46GiB(64.99%)  tps: 7,282  tflops: 0.52  mfu: 0.17%",
        "[rank0]:[titan] 2026-05-18 16:04:50,821 - root - INFO - step: 18  loss:  3.54399  grad_norm:  0.7675  memory:  9.46GiB(64.99%)  tps: 7,322  tflops: 0.52  mfu: 0.17%",
        "[rank0]:[titan] 2026-05-18 16:04:51,942 - root - INFO - step: 19  loss:  3.01032  grad_norm:  0.7197  memory:  9.46GiB(64.99%)  tps: 7,309  tflops: 0.52  mfu: 0.17%",
      ],
    },
  }),
  template({
    id: "cuda-oom",
    name: "CUDA out of memory",
    summary: "faults the job on a GPU out-of-memory error, in any of its shapes",
    rules: rule("CudaOOM", PATTERNS.cudaOom, { faultOnMatch: true }),
    samples: {
      fires: [
        at("12:00:00", "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."),
        at("12:00:01", "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB"),
        at("12:00:02", "misc/strongstream.cc:53 NCCL WARN Cuda failure 'out of memory'"),
      ],
      quiet: [
        at("12:00:00", "max memory allocated: 61.2 GiB, reserved: 70.1 GiB"),
        at("12:00:01", "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"),
      ],
    },
  }),
  template({
    id: "nccl-timeout",
    name: "NCCL timeout",
    summary:
      "faults the job when a collective times out, in any of its forms (watchdog, blocking wait, the take-down line)",
    rules: rule("NcclTimeout", PATTERNS.ncclTimeout, { faultOnMatch: true }),
    samples: {
      fires: [
        at(
          "12:00:00",
          "[rank3]:[E ProcessGroupNCCL.cpp:563] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1234, OpType=ALLREDUCE, NumelIn=8, NumelOut=8, Timeout(ms)=600000) ran for 600045 milliseconds before timing out.",
        ),
      ],
      quiet: [
        at("12:00:00", "ip-10-0-0-1:1234:1234 [0] NCCL INFO comm 0x55d5 rank 0 nranks 16 - Init COMPLETE"),
        at(
          "12:00:01",
          "[W Utils.hpp:133] Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated",
        ),
        at("12:00:02", "NCCL INFO NET/Plugin: Failed to open libnccl-net.so; using internal implementation"),
      ],
    },
  }),
  template({
    id: "nccl-failure",
    name: "NCCL transport or CUDA failure",
    summary:
      "faults the job when NCCL reports a network, transport or CUDA failure (InfiniBand or socket errors, aborted communicators, unhandled errors)",
    rules: rule("NcclFailure", PATTERNS.ncclFailure, { faultOnMatch: true }),
    samples: {
      fires: [
        at(
          "12:00:00",
          "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5",
        ),
      ],
      quiet: [
        at("12:00:00", "ip-10-0-0-1:1234:1234 [0] NCCL INFO comm 0x55d5 rank 0 nranks 16 - Init COMPLETE"),
        at("12:00:02", "NCCL INFO NET/Plugin: Failed to open libnccl-net.so; using internal implementation"),
      ],
    },
  }),
  template({
    id: "gpu-hardware",
    name: "GPU hardware fault",
    summary:
      "faults the job on a GPU hardware fault by NVIDIA's Xid catalog (reset, reboot or hardware workflow), a GPU fallen off the bus, or an uncorrectable ECC error",
    rules: rule("GpuHardware", PATTERNS.gpuHardware, { faultOnMatch: true }),
    samples: {
      fires: [
        at(
          "12:00:00",
          "kernel: NVRM: Xid (PCI:0000:3b:00): 48, pid=2211, name=python, An uncorrectable double bit error (DBE) has been detected",
        ),
        at(
          "12:00:01",
          "kernel: NVRM: Xid (PCI:0000:5c:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
        ),
      ],
      quiet: [
        at("12:00:00", "kernel: NVRM: Xid (PCI:0000:3b:00): 63, pid=2211, name=python, Row remapping event"),
        at("12:00:01", "kernel: NVRM: Xid (PCI:0000:3b:00): 13, pid=2211, name=python, Graphics Exception"),
        at("12:00:02", "| GPU  Name  Persistence-M | Bus-Id  Disp.A | Volatile Uncorr. ECC |"),
      ],
    },
  }),
  template({
    id: "checkpoint-overdue",
    name: "Checkpoint save overdue",
    summary: "faults the job when no checkpoint has been saved for an hour since the last one",
    rules: rule("CheckpointOverdue", PATTERNS.checkpointSaved, { expectedRecurringFrequencyInSeconds: 3600 }),
    samples: {
      fires: [
        at("12:00:00", "successfully saved checkpoint from iteration 1000 to /fsx/ckpt"),
        at("12:30:00", "step: 1500  loss:  2.0100"),
        at("13:01:00", "step: 2010  loss:  1.9900"),
      ],
      quiet: [
        at("12:00:00", "successfully saved checkpoint from iteration 1000 to /fsx/ckpt"),
        at("12:45:00", "step: 1750  loss:  2.0000"),
        at("12:50:00", "Saved checkpoint to /fsx/ckpt/step-1800"),
      ],
    },
  }),
];
