import { PATTERNS, yamlQuoted } from "./template-patterns";
import type { PolicyTemplate } from "./types";

/**
 * Policies shipped with the product. Their patterns (template-patterns.ts) are measured on the corpus of
 * public log lines in log-corpus/ (log-corpus.test.ts); each template also carries lines it fires on and
 * lines it stays quiet on, which templates.test.ts dry-runs and the real hyperpod-elastic-agent runs. Those
 * are real lines from the corpus, behind a made-up arrival time (`at`) where a window needs one; the loss
 * spike and slow-run samples are real formats (torchtitan's, Megatron's) with made-up values, as the
 * corpus holds no public log of either.
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

const SPIKE = { metricThreshold: 10, operator: "gt", metricEvaluationDataPoints: 3 };
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
        at("12:00:00", "iter 10: loss 3.2202, time 893.76ms, mfu 16.68%"),
        at("12:00:30", "2023-03-22 09:30:39 iter 2920: loss 3.9883, time 1099.34ms, mfu 15.34%"),
        at(
          "12:06:00",
          "hostname-test:984:1257 [4] NCCL INFO comm 0x557fe785f7a0 rank 36 nranks 64 cudaDev 4 nvmlDev 4 busId 9b000 commId 0x5ae77eb5ea4ec1ee - Init COMPLETE",
        ),
      ],
      quiet: [
        at("12:00:00", "  1%|          | 10/1233 [07:54<14:12:16, 41.81s/it]"),
        at(
          "12:04:00",
          "{'loss': 1.6228, 'grad_norm': 9.305521011352539, 'learning_rate': 4.9424511162240815e-06, 'epoch': 0.16}",
        ),
        at("12:08:00", "  2%|▏         | 20/1233 [14:40<13:43:48, 40.75s/it]"),
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
        at("12:00:00", "Loading checkpoint shards:   0%|          | 0/81 [00:00<?, ?it/s]"),
        at("12:10:00", "Loading checkpoint shards:   9%|▊         | 7/81 [00:06<01:10,  1.05it/s]"),
        at("12:16:00", "[INFO|trainer.py:2413] 2025-03-06 12:04:09,914 >>   Total optimization steps = 196"),
      ],
      quiet: [
        at("12:00:00", "Loading checkpoint shards:   9%|▊         | 7/81 [00:06<01:10,  1.05it/s]"),
        at("12:05:00", "{'loss': 2.0491, 'learning_rate': 0.0001961913563176343, 'epoch': 0.28}"),
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
        "2023-03-22 09:32:52 iter 3010: loss nan, time 1019.95ms, mfu 14.12%",
        "{'loss': 0.2051, 'grad_norm': nan, 'learning_rate': 9.774074342405685e-06, 'epoch': 0.53}",
        "AssertionError: Rank 11: found NaN in local grad norm in backward pass before data-parallel communication collective. Device: 3",
        "Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.",
      ],
      quiet: [
        "[2023-04-28 06:51:30,648] [INFO] [loss_scaler.py:181:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768",
        "{'loss': 1.6531, 'learning_rate': 1.3934426229508198e-05, 'epoch': 0.38}",
        "  train_loss               =     0.0063",
      ],
    },
  }),
  template({
    id: "loss-spike",
    name: "Loss spike",
    summary:
      "faults the job when the loss stays above 10 for 3 logged steps in a row, from step 100 on (the first steps of a large vocabulary start above 10)",
    // Three rules: the step before its loss (most frameworks), after it (fairseq), or the two alone on a line.
    rules:
      rule("LossSpike", PATTERNS.lossSpike, SPIKE) +
      rule("LossSpikeUpdates", PATTERNS.lossSpikeBeforeCounter, SPIKE) +
      rule("LossSpikeBare", PATTERNS.lossSpikeBare, SPIKE),
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
        "[rank15]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.63 GiB. GPU 7 has a total capacity of 79.11 GiB of which 2.61 GiB is free. Including non-PyTorch memory, this process has 0 bytes memory in use. Of the allocated memory 48.15 GiB is allocated by PyTorch, with 50.00 MiB allocated in private pools (e.g., CUDA Graphs), and 3.49 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)",
        "[2025-09-24 16:15:28] cw-dfw-h100-001-132-026:2999605:3004403 [0] include/alloc.h:228 NCCL WARN Cuda failure 2 'out of memory'",
      ],
      quiet: [
        "after 1 iterations memory (MB) | allocated: 19278.6044921875 | max allocated: 27906.7255859375 | reserved: 28864.0 | max reserved: 35216.0",
        "[rank0]:[titan] 2026-05-18 16:07:12,875 - root - INFO - CUDA memory usage for model: 0.02GiB(0.12%)",
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
        "[rank0]:[E1206 18:44:12.715298746 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7753, OpType=_REDUCE_SCATTER_BASE, NumelIn=544997376, NumelOut=68124672, Timeout(ms)=600000) ran for 600061 milliseconds before timing out.",
        "[rank1]:[E1002 18:16:40.662691402 ProcessGroupNCCL.cpp:756] [Rank 1] Work WorkNCCL(SeqNum=2521, OpType=ALLREDUCE, NumelIn=160672064, NumelOut=160672064, Timeout(ms)=600000) timed out in blocking wait.",
      ],
      quiet: [
        "hostname-test:984:1257 [4] NCCL INFO comm 0x557fe785f7a0 rank 36 nranks 64 cudaDev 4 nvmlDev 4 busId 9b000 commId 0x5ae77eb5ea4ec1ee - Init COMPLETE",
        "[W Utils.hpp:135] Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function getCvarInt)",
        "[rank0]:[titan] 2025-09-11 17:33:50,432 - root - INFO - Synchronizing and adjusting timeout for all ProcessGroups to 0:01:40",
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
        "kp-ddp-worker-0:3468:3905 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer 10.216.210.236<54862> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid fd00:1148:9000:5000:4:200:3:ff22 remoteGidsfd00:1148:9000:5000:4:200:3:ff1f",
        "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, remote process exited or there was a network error, NCCL version 2.21.5",
      ],
      quiet: [
        "user-MH53-G40-001:10225:10549 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal net plugin.",
        "ada6000-02:1263645:1263698 [1] NCCL INFO comm 0x56266ca3c2d0 rank 1 nranks 2 cudaDev 1 busId be000 - Destroy COMPLETE",
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
        "Dec  2 11:38:47 worker4 kernel: [  219.470994] NVRM: Xid (PCI:0000:07:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at physAddr 0x7fffa8860 partition 7, subpartition 1.",
        "kwi 03 09:01:25 testowy kernel: NVRM: Xid (PCI:0000:07:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)",
        "[Fri Apr  5 21:29:39 2024] NVRM: Xid (PCI:0000:a1:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
      ],
      quiet: [
        "[93297.029837] NVRM: Xid (PCI:0000:43:00): 13, pid='<unknown>', name=<unknown>, Graphics Exception: ESR 0x52ef30=0x0 0x52ef34=0x20 0x52ef28=0xc81eb60 0x52ef2c=0x1174",
        "[Fri Aug  9 13:32:56 2024] NVRM: Xid (PCI:0000:00:08): 94, pid='<unknown>', name=<unknown>, Contained: SM (0x1). RST: No, D-RST: No",
        "NVRM: Xid (PCI:0018:01:00): 145, RLW_RXPIPE Nonfatal XC0 i0 Link 13 (0x0409a0c2 0x00000008 0x00000001 0x00000000 0x00100000 0x00000004)",
        "|   0  NVIDIA A800-SXM4-80GB          On  | 00000000:27:00.0 Off |                    0 |",
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
        at(
          "12:00:00",
          "  successfully saved checkpoint from iteration      10 to /opt/Megatron-Bridge/nemo_experiments/default/checkpoints [ t 1/1, p 1/1 ]",
        ),
        at("12:30:00", "iter 10: loss 3.2202, time 893.76ms, mfu 16.68%"),
        at("13:01:00", "iter 10: loss 3.2202, time 893.76ms, mfu 16.68%"),
      ],
      quiet: [
        at(
          "12:00:00",
          "[INFO|trainer.py:2936] 2024-02-09 14:55:56,041 >> Saving model checkpoint to saves/LLaMA-7B/lora/train_2024-02-09-14-34-22/tmp-checkpoint-100",
        ),
        at("12:45:00", " loading checkpoint from /nas/megatron_gpt/ at iteration 100"),
        at(
          "12:50:00",
          "[rank0]:2025-04-01 00:25:59,616 - root - INFO - Finished saving the checkpoint (or staging if async is enabled)in 5.53 seconds.",
        ),
      ],
    },
  }),
];
