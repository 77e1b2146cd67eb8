import { PROGRESS_PATTERN } from "@/server/domain/log-rules/progress";

/**
 * The shipped templates' log patterns, in HyperPod rule syntax: Python `re.match` (anchored at the line's
 * start, so each begins `.*` or `(?i).*`), written in the part of Python's syntax that RE2 runs the same way
 * (no lookaround; flags global only at the very start, else scoped `(?i:…)`, which Python 3.11 requires).
 * Measured on the corpus of public log lines in log-corpus/ (log-corpus.test.ts prints the table).
 *
 * Rules of thumb they follow, learnt from that corpus:
 * - no `^`: the same message arrives bare, behind `[rank3]:`, a glog header, a syslog prefix or a tqdm bar;
 * - no single careless word (`error`, `nan`, `timeout`, `ECC`, `fatal`): whole phrases a fault prints;
 * - a value capture reads what Python's float() reads (sign, exponent, nan, inf) and never half a number:
 *   `tps: 7,282` is not read at all rather than read as 7 (float() cannot read "7,282", and the agent would
 *   skip the line with an error), so a healthy run printing separators never counts as slow;
 * - GPU hardware by Xid number, from NVIDIA's Xid catalog: the Xids whose action is a GPU reset, a node
 *   reboot, a hardware workflow or a mechanical check (the NVLink Xids 144–150 when they say `Fatal`; 46, 48, 54, 62, 64, 74, 79, 95, 109, 110, 119, 120,
 *   136, 140, 143, 151, 155, 156, 158, 160, 162, and 154 when the action it asks for is not None);
 *   not the application's (13, 31, 43, 45, 94 …) nor informational ones (63, 145 "Nonfatal" …); and the
 *   driver's own words for a lost GPU (fallen off the bus, split over several kernel lines by newer drivers,
 *   `NV_ERR_GPU_IS_LOST`, `NV_ERR_RESET_REQUIRED` and a GSP call that returns it (status 0x62), a crash
 *   dump, `RmInitAdapter failed` and its `rm_init_adapter` / `osInitNvMapping` lines, nvidia-smi's
 *   "Unable to determine the device handle"); a fatal NVSwitch SXid; an uncorrectable host memory error (EDAC
 *   `UE`), which also takes the node out; and, outside NVIDIA's catalog, the amdgpu driver resetting a GPU
 *   or losing its memory (`GPU reset`, `reset failed`, `VRAM is lost`).
 */

/** The loss a step reports: `loss`, `lm loss`, `train_loss`, `reduced_train_loss`, `avr_loss`; not `bbox_loss`. */
const LOSS_NAME = "(?:lm |train |total |train_|total_|reduced_train_|avr_|avg_|mlm_)?loss(?: train)?";

/** A float as Python's float() reads it in a log: sign, decimals, exponent, nan, inf. */
const FLOAT = String.raw`[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|[-+]?(?:nan|inf(?:inity)?)\b`;

export const PATTERNS = {
  progress: PROGRESS_PATTERN,

  nanLoss: [
    "(?i).*(?:",
    String.raw`(?:(?:\b\w?|_)loss\]?|\bgrad[ _]norm|\bgradient norm)['"]?\s*(?:[:=|]|\bis\b|\bwas\b|\bbecame\b)?\s*['"]?(?:tensor\(\[?)?[-+]?(?:nan|inf(?:inity|inite)?)\b`,
    String.raw`|\btensor\(\[?[-+]?nan\b`,
    String.raw`|\b(?:nan|inf) (?:loss|grad)`,
    "|found (?:nan|inf) in (?:local )?grad norm",
    "|nan or inf found in input tensor",
    "|iterations in a row due to overflow",
    String.raw`|number of nan iterations:\s*[1-9]`,
    "|loss scale already at (?:the )?minimum|minimum loss scale reached",
    String.raw`|(?:attempted loss scale: [0-9.]+, reducing to|reducing dynamic loss scale from [0-9.]+ to|reducing loss scale to) [12](?:\.0)?\b`,
    String.raw`|(?:reducing|setting) (?:loss )?scale to:? (?:0\.0|[0-9.]+e-)`,
    "|returned nan values",
    String.raw`|invalid (?:nan )?value (?:\(nan\) )?encountered|\b(?:loss|grad[ _]?norm) is not finite`,
    "|lg_loss_scale to -[0-9]",
    ").*",
  ].join(""),

  /**
   * A step's loss from step 100 on: a counter of three digits or more (`step: 200`, `iteration 200/`,
   * `iter 100:`, a bar's `| 795/77225 [`, a logger's `[ 120/2669]`, a line opening `490 | loss …`), then
   * the first loss after it, a validation loss too (`validation loss at iteration 1000 | LM loss: …`: a
   * divergence shows there as well). A date (`[2020/11/16 …`) is no counter.
   */
  lossSpike: [
    "(?i).*(?:",
    String.raw`(?:\b|_)(?:step|steps|current_steps|iteration|iter|batch|epoch)\b\]?['"]?\s*[:=]?\s*\[?\s*[1-9][0-9]{2,}(?:[/:,|\]].*?|\s+(?:[a-z|].*?)?)`,
    String.raw`|(?:^|[|\[%\s])\s*[1-9][0-9]{2,}\s*/\s*[0-9]+(?:[^0-9/].*?)?`,
    String.raw`|(?:^|\s-)\s*[1-9][0-9]{2,}\s*[|:]\s*`,
    String.raw`)\b${LOSS_NAME}['"]?\s*(?:[:=]|\bis\b)?\s*['"]?(${FLOAT}).*`,
  ].join(""),

  /** A line that is a step number and its loss and nothing else (`76970 2.6265104`), as `print(step, loss)` writes it. */
  lossSpikeBare: String.raw`(?i)\s*[1-9][0-9]{2,}\s+([0-9]*\.[0-9]+(?:e[-+]?[0-9]+)?|nan|inf)\s*$`,

  /**
   * The same, where the counter follows the loss: fairseq's `loss=9.44, nll_loss=…, num_updates=700`, its
   * JSON records, `[Loss] nan | … | [step]   104`, a bar named by its losses (`[losses/total_loss: 1.15 …]:
   * 100%|…| 128/128 [`).
   */
  lossSpikeBeforeCounter: [
    String.raw`(?i).*\b${LOSS_NAME}\]?['"]?\s*[:=]?\s*['"]?(${FLOAT})\b.*(?:`,
    String.raw`(?:\b|_)(?:num_updates|step|steps)\b\]?['"]?\s*[:=]?\s*[1-9][0-9]{2,}\b`,
    String.raw`|[|\[%\s]\s*[1-9][0-9]{2,}\s*/`,
    ").*",
  ].join(""),

  lowThroughput: String.raw`(?i).*(?:\b(?:tps|tgs|wps|tok/s|tokens/s(?:ec)?|tokens per (?:gpu per )?second(?: \(tgs\))?)|(?:\b|_)tokens_per_sec(?:ond)?(?:_per_gpu)?['"]?)(?:/device|/gpu)?\s*[:=]?\s*([0-9]+(?:\.[0-9]+)?(?:e[-+]?[0-9]+)?)(?:[^0-9,.]|[,.][^0-9]|[,.]?$).*`,
  /** The same figure printed before its unit (`Throughput: 1507 tokens/s`), for a second rule. */
  lowThroughputUnit: String.raw`(?i).*[\s:=(]([0-9]+(?:\.[0-9]+)?) ?(?:tokens|toks?)/s(?:ec)?\b.*`,

  cudaOom: [
    ".*(?:(?i:cuda out of memory)|OutOfMemoryError|Cuda failure (?:[0-9]+ )?'?out of memory|CUBLAS_STATUS_ALLOC_FAILED",
    "|(?i:hip out of memory|cuda error: out of memory)|CUDA_ERROR_OUT_OF_MEMORY|cudaErrorMemoryAllocation",
    "|Failed to CUDA calloc|(?i:resource[ _]exhausted):? (?:Out of memory|Attempting to (?:reserve|allocate)|Failed to allocate request)",
    "|OOM when allocating tensor.*(?:device:GPU|allocator GPU)|(?i:resource exhausted|ResourceExhaustedError).*OOM when allocating tensor with shape(?:\\[[0-9,]*\\])?\\s*$",
    "|Ran out of memory in memory space hbm",
    "|Ran out of GPU memory|from device: (?:hipError_t\\(1002\\)|HIP_ERROR_OutOfMemory)).*",
  ].join(""),

  ncclTimeout: [
    ".*(?:Watchdog caught collective operation timeout",
    "|ran for [0-9]+ milliseconds before timing out",
    "|Timeout at NCCL work",
    String.raw`|Exception \(either an error or timeout\) detected by watchdog`,
    "|Some NCCL operations have failed or timed out",
    "|To avoid data inconsistency, we are taking the entire process down",
    "|[Cc]aught collective operation timeout",
    "|Timed out waiting [0-9]+ ?ms for|Timed out initializing process group|gloo.*Connect timeout",
    String.raw`|WorkNCCL\(.*\) timed out in`,
    "|watchdog got stuck for [0-9]+ seconds",
    "|Heartbeat monitor timed out|failure detected by watchdog|due to a collective timeout",
    String.raw`|\[c10d\].*timed out after [0-9]+ ?ms`,
    "|Socket Timeout|Timed out after [0-9]+ seconds waiting for (?:clients|workers)",
    "|DistBackendError.*[Tt]ime(?:d )?out",
    ").*",
  ].join(""),

  ncclFailure: [
    ".*(?:nccl(?:UnhandledCuda|System|Remote|Internal)Error",
    "|NCCL error in: |unhandled (?:cuda|system) error",
    "|remote process exited or there was a network error",
    "|NCCL communicator was aborted",
    "|NCCL WARN (?:NET/IB|NET/Socket|Net/IB)\\b.*(?:[Ee]rr|failed)",
    "|NCCL WARN .*(?:Connection reset|Connection refused|Connection closed by remote peer|Broken pipe|Call to [a-z_]+ failed|Cuda failure)",
    "|NCCL WARN socketPollConnect|\\[Proxy thread error\\]|NCCL WARN .*\\bfatal (?:error|event)\\b",
    "|socketProgress(?:Opt)?: (?:Call to [a-z]+ .* failed|Connection closed by remote peer)",
    "|socketStartConnect: Connect to .* failed|NCCL WARN \\[Proxy Service [0-9]+\\] Failed|NCCL WARN Socket (?:recv|send) failed",
    "|watchdog thread terminated with exception: CUDA error",
    "|DistBackendError|NET/OFI .*error|gloo/transport/tcp.*Connection (?:refused|reset)",
    ").*",
  ].join(""),

  gpuHardware: [
    String.raw`.*(?:Xid \([^)]*\): (?:46|48|54|62|64|74|79|95|109|110|119|120|136|140|143|151|155|156|158|160|162)\b`,
    String.raw`|Xid \([^)]*\): (?:14[4-9]|150)\b.*\bFatal\b`,
    String.raw`|Xid \([^)]*\): 154\b.*to 0x0*[1-9a-fA-F]`,
    "|fallen off the bus|(?:NV_ERR|ERROR)_GPU_IS_LOST|NV_ERR_RESET_REQUIRED|RmInitAdapter failed|rm_init_adapter failed",
    "|osInitNvMapping(?: failed|: \\*\\*\\* Cannot attach gpu)|GspRmAlloc failed: .*status=0x0*62\\b",
    "|A GPU crash dump has been created|Unable to determine the device handle for GPU",
    "|Cannot initialize GSP firmware|failed to wait for GFW_BOOT",
    String.raw`|SXid \([^)]*\): [0-9]+, Fatal|\b[0-9]+ UE memory (?:read )?error`,
    "|(?i:uncorrectable ECC error|double bit ECC error|uncorrectable NVLink error)",
    "|amdgpu.*(?:GPU reset|reset failed|uncorrectable hardware error)|VRAM is lost",
    ").*",
  ].join(""),

  /** A checkpoint being or just saved, in the words of each framework; not a load, a config key or a saver starting. */
  checkpointSaved: [
    "(?i).*(?:",
    String.raw`\bsav(?:e|ed|ing) (?:[\w.-]+ ){0,3}?checkpoints?\b`,
    String.raw`|\bcheckpoints? (?:is )?saved|\bcheckpoints? of size \S+ \w+ saved (?:to|in)\b|\bcheckpoint (?:successfully )?created\b|\b(?:sampler|scheduler|random) states? (?:for \w+ [0-9]+ )?saved in|\bcheckpoint save\b|checkpoint \S+ is (?:about to be saved|ready now)`,
    String.raw`|\bsave[- ]checkpoint\b|finished saving|saving current state to|saved state to`,
    String.raw`|model weights saved in .*checkpoint|optimizer state saved in|\[Torch\] Sav(?:ing|ed) `,
    "|storing distributed optimizer|sav(?:ing|ed) model to|sav(?:ing|ed) model and optimizer state|\\bsave (?:latest|best|final) model to|\\bcheckpoint done\\b",
    String.raw`|saved in \S*checkpoint|checkpoint request|modules are saved in|about to save the|\b(?:model|optimizer) saved\b|\bsaving model (?:weights )?(?:to|in)\b|\bsaving the model\b`,
    ").*",
  ].join(""),
} as const;

/** A pattern as a single-quoted YAML scalar (a quote inside is doubled). */
export const yamlQuoted = (pattern: string): string => `'${pattern.replaceAll("'", "''")}'`;
