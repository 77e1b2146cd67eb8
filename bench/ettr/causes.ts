/**
 * What breaks a 16,384-GPU job, how often, and which recovery each cause gets: the rate and root-cause mix
 * the ETTR simulation (bench/ettr/simulate.ts) draws its faults from, each figure with its published source.
 *
 * Rate: Kokolis et al., "Revisiting Reliability in Large-Scale Machine Learning Research Clusters" (Meta,
 * arXiv:2410.21680, 2024) fit a failure model to 11 months of two A100 clusters and project the mean time to
 * failure of a job by its GPU count: 7.9 h at 1,024 GPUs, 1.8 h at 16,384 and ~14 min at 131,072.
 * For comparison, Llama 3's run saw 419 unexpected interruptions in 54 days at 16,384 H100s (Dubey et al.,
 * "The Llama 3 Herd of Models", arXiv:2407.21783, section 3.3.4): 54 × 24 / 419 = 3.1 h.
 *
 * Mix: Llama 3's Table 5 (root causes of the 419 unexpected interruptions in 54 days of Llama 3 405B
 * pre-training on 16,384 H100s). Its counts are used as the weights: they sum to 419, and every printed
 * percentage is count / 419 rounded, except "Faulty GPU" (148 = 35.3 % of 419; the table prints 30.1 %), so the
 * printed percentages sum to 94.9 %, not 100. ByteDance's MegaScale (Jiang et al., arXiv:2402.15627) reports
 * automated recovery at 12,288 GPUs but no mix in this form; it is not used.
 *
 * Recovery path: a fault of the machine (GPU, its memory, host, NIC, a network link or switch behind the
 * node, host maintenance) takes the node out: the pod is replaced on a healthy node. A fault of the software
 * (a bug in the job or a dependency, an NCCL watchdog timeout) leaves the machine usable: the ranks restart
 * in place. Silent data corruption is the GPU's: the node is replaced.
 */
export type RecoveryPath = "replace" | "inplace";

export type Cause = {
  name: string;
  /** Table 5's category. */
  category: string;
  /** Interruptions of this cause in the 54 days (Table 5's count). */
  count: number;
  /** The percentage Table 5 prints (for the record: the weights are the counts). */
  printedPercent: number;
  path: RecoveryPath;
};

/** Dubey et al. 2024, "The Llama 3 Herd of Models", arXiv:2407.21783, Table 5. */
export const LLAMA3_CAUSES: readonly Cause[] = [
  { name: "Faulty GPU", category: "GPU", count: 148, printedPercent: 30.1, path: "replace" },
  { name: "GPU HBM3 memory", category: "GPU", count: 72, printedPercent: 17.2, path: "replace" },
  { name: "Software bug", category: "Dependency", count: 54, printedPercent: 12.9, path: "inplace" },
  { name: "Network switch/cable", category: "Network", count: 35, printedPercent: 8.4, path: "replace" },
  {
    name: "Host maintenance",
    category: "Unplanned maintenance",
    count: 32,
    printedPercent: 7.6,
    path: "replace",
  },
  { name: "GPU SRAM memory", category: "GPU", count: 19, printedPercent: 4.5, path: "replace" },
  { name: "GPU system processor", category: "GPU", count: 17, printedPercent: 4.1, path: "replace" },
  { name: "NIC", category: "Host", count: 7, printedPercent: 1.7, path: "replace" },
  { name: "NCCL watchdog timeouts", category: "Unknown", count: 7, printedPercent: 1.7, path: "inplace" },
  { name: "Silent data corruption", category: "GPU", count: 6, printedPercent: 1.4, path: "replace" },
  { name: "GPU thermal interface + sensor", category: "GPU", count: 6, printedPercent: 1.4, path: "replace" },
  { name: "SSD", category: "Host", count: 3, printedPercent: 0.7, path: "replace" },
  { name: "Power supply", category: "Host", count: 3, printedPercent: 0.7, path: "replace" },
  { name: "Server chassis", category: "Host", count: 2, printedPercent: 0.5, path: "replace" },
  { name: "IO expansion board", category: "Host", count: 2, printedPercent: 0.5, path: "replace" },
  { name: "Dependency", category: "Dependency", count: 2, printedPercent: 0.5, path: "inplace" },
  { name: "CPU", category: "Host", count: 2, printedPercent: 0.5, path: "replace" },
  { name: "System memory", category: "Host", count: 2, printedPercent: 0.5, path: "replace" },
];

/** Table 5's total: unexpected interruptions in the 54 days. */
export const LLAMA3_INTERRUPTIONS = 419;
export const LLAMA3_DAYS = 54;

/** Kokolis et al. 2024 (arXiv:2410.21680): projected job MTTF at 16,384 GPUs, hours. */
export const MTTF_HOURS_16K = 1.8;

/** Each cause's share of the faults (its count over the total), in the list's order. */
export function causeFractions(causes: readonly Cause[]): number[] {
  const total = causes.reduce((sum, cause) => sum + cause.count, 0);
  return causes.map((cause) => cause.count / total);
}

/** The share of faults that go each recovery path. */
export function pathFractions(causes: readonly Cause[]): Record<RecoveryPath, number> {
  const fractions = causeFractions(causes);
  const shares: Record<RecoveryPath, number> = { replace: 0, inplace: 0 };
  for (const [index, cause] of causes.entries()) shares[cause.path] += fractions[index] ?? 0;
  return shares;
}
