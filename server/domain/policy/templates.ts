import type { PolicyTemplate } from "./types";

/**
 * Policies shipped with the product, written for the log formats of reference/log-formats.md (prefixes
 * vary, so no `^` anchors; captures accept sign, exponent, nan and inf; hardware faults by Xid number, not by
 * keyword). Each carries lines it fires on and lines it stays quiet on; templates.test.ts dry-runs both.
 */

const RESTART = `restartPolicy:
  evalPeriodSeconds: 3600
  numRestartBeforeFullJobRestart: 3
  maxFullJobRestarts: 1
jobMaxRetryCount: 10
`;

const template = (t: Omit<PolicyTemplate, "yaml"> & { rules: string }): PolicyTemplate => ({
  id: t.id,
  name: t.name,
  summary: t.summary,
  yaml: `# ${t.name}: ${t.summary}\n${RESTART}logMonitoringConfiguration:\n${t.rules}`,
  samples: t.samples,
});

const at = (clock: string, text: string) => `2026-03-01T${clock}Z ${text}`;

export const POLICY_TEMPLATES: PolicyTemplate[] = [
  template({
    id: "hang",
    name: "Hang (no step lines)",
    summary: "faults the job when no training step is logged for 5 minutes",
    rules: `  - name: StepHang
    logPattern: '(?i).*\\b(step|iteration|iter)\\b\\s*[:=]?\\s*[0-9]+.*'
    expectedRecurringFrequencyInSeconds: 300
`,
    samples: {
      fires: [
        at("12:00:00", "step: 100  loss:  2.3812"),
        at("12:00:10", "step: 101  loss:  2.3790"),
        at("12:07:00", "[rank0]: NCCL INFO Channel 00 : 0[0] -> 1[1] via P2P/IPC"),
      ],
      quiet: [
        at("12:00:00", "step: 100  loss:  2.3812"),
        at("12:02:00", "iteration      200/  500000 | consumed samples: 51200 | lm loss: 2.3612E+00"),
        at("12:04:30", "step: 300  loss:  2.3550"),
      ],
    },
  }),
  template({
    id: "start-cut-off",
    name: "Start cut-off",
    summary: "faults the job when the first training step has not come 15 minutes after the start",
    rules: `  - name: StartCutOff
    logPattern: '(?i).*\\b(step|iteration|iter)\\b\\s*[:=]?\\s*[0-9]+.*'
    expectedStartCutOffInSeconds: 900
`,
    samples: {
      fires: [
        at("12:00:00", "Loading checkpoint shards: 10%"),
        at("12:10:00", "Loading checkpoint shards: 60%"),
        at("12:16:00", "Loading checkpoint shards: 90%"),
      ],
      quiet: [at("12:00:00", "Loading checkpoint shards: 100%"), at("12:05:00", "step: 1  loss:  10.9812")],
    },
  }),
  template({
    id: "nan-loss",
    name: "NaN loss",
    summary: "faults the job on the first NaN or infinite loss or gradient norm",
    rules: `  - name: NaNLoss
    logPattern: '(?i).*\\b(lm[ _])?(loss|grad_norm)['']?\\s*[:=]\\s*['']?[-+]?(nan|inf)\\b.*'
    faultOnMatch: true
`,
    samples: {
      fires: [
        at("12:00:00", "step: 200  loss:  nan"),
        at("12:00:01", "{'loss': 2.0491, 'grad_norm': nan, 'learning_rate': 1e-05}"),
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
    summary: "faults the job when the loss stays above 10 for 3 logged steps in a row",
    rules: `  - name: LossSpike
    logPattern: '(?i).*\\b(?:lm[ _])?loss['']?\\s*[:=]\\s*['']?([-+]?[0-9]*\\.?[0-9]+(?:[eE][-+]?[0-9]+)?).*'
    metricThreshold: 10
    operator: gt
    metricEvaluationDataPoints: 3
`,
    samples: {
      fires: [
        at("12:00:00", "step: 500  loss:  2.1000"),
        at("12:00:10", "step: 501  loss:  25.400"),
        at("12:00:20", "iteration 502 | lm loss: 3.104000E+01"),
        at("12:00:30", "step: 503  loss:  40.112"),
      ],
      quiet: [
        at("12:00:00", "step: 500  loss:  2.1000"),
        at("12:00:10", "step: 501  loss:  12.400"),
        at("12:00:20", "step: 502  loss:  2.0500"),
        at("12:00:30", "step: 503  loss:  1.9900"),
      ],
    },
  }),
  template({
    id: "low-throughput",
    name: "Low throughput",
    summary: "faults the job when throughput stays below 1,000 tokens/s for 5 reports in a row",
    rules: `  - name: LowThroughput
    logPattern: '(?i).*\\b(?:tps|tokens/s(?:ec)?|tok/s|throughput)\\s*[:=]\\s*([0-9]+(?:\\.[0-9]+)?).*'
    metricThreshold: 1000
    operator: lt
    metricEvaluationDataPoints: 5
`,
    samples: {
      fires: [
        at("12:00:00", "step: 10  loss: 3.1  tps: 820"),
        at("12:00:10", "step: 11  loss: 3.1  tps: 790"),
        at("12:00:20", "step: 12  loss: 3.0  tps: 801"),
        at("12:00:30", "step: 13  loss: 3.0  tps: 640"),
        at("12:00:40", "step: 14  loss: 3.0  tps: 700"),
      ],
      quiet: [
        at("12:00:00", "step: 10  loss: 3.1  tps: 5120"),
        at("12:00:10", "step: 11  loss: 3.1  tps: 900"),
        at("12:00:20", "step: 12  loss: 3.0  tps: 5033"),
        at("12:00:30", "step: 13  loss: 3.0  tps: 5101"),
        at("12:00:40", "step: 14  loss: 3.0  tps: 4988"),
      ],
    },
  }),
  template({
    id: "cuda-oom",
    name: "CUDA out of memory",
    summary: "faults the job on a GPU out-of-memory error, in any of its shapes",
    rules: `  - name: CudaOOM
    logPattern: '.*((?i)cuda out of memory|OutOfMemoryError|Cuda failure .out of memory.|CUBLAS_STATUS_ALLOC_FAILED).*'
    faultOnMatch: true
`,
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
    name: "NCCL watchdog timeout",
    summary: "faults the job when NCCL's watchdog times a collective out or takes the process down",
    rules: `  - name: NcclTimeout
    logPattern: '.*(Watchdog caught collective operation timeout|ran for [0-9]+ milliseconds before timing out|To avoid data inconsistency, we are taking the entire process down).*'
    faultOnMatch: true
`,
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
    id: "ecc-error",
    name: "Uncorrectable ECC error",
    summary:
      "faults the job on a GPU hardware error: Xid 48, 64, 74, 79, 94, 95, 149 or 154, or an uncorrectable ECC error",
    rules: `  - name: GpuHardware
    logPattern: '.*(NVRM: Xid \\([^)]*\\): (48|64|74|79|94|95|149|154),|(?i)uncorrectable (ecc|double bit) error).*'
    faultOnMatch: true
`,
    samples: {
      fires: [
        at(
          "12:00:00",
          "kernel: NVRM: Xid (PCI:0000:3b:00): 48, pid=2211, name=python, An uncorrectable double bit error (DBE) has been detected",
        ),
        at("12:00:01", "kernel: NVRM: Xid (PCI:0000:5c:00): 94, pid=2212, name=python, Contained: SM (0x1)."),
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
    rules: `  - name: CheckpointOverdue
    logPattern: '.*((?i)saved checkpoint|checkpoint saved|successfully saved checkpoint|saving checkpoint .* done).*'
    expectedRecurringFrequencyInSeconds: 3600
`,
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
