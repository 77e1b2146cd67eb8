import { CoreV1Api, type KubeConfig, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { setNodeHealth } from "@/server/cluster/kubernetes/testing/kube-env";
import { round, summarize } from "../recovery/stats";
import type { BenchConfig, BenchSignalSource } from "./config";
import type { BenchDcgm } from "./dcgm";
import type { FaultSample, NodeSignalSetter } from "./faults";

/**
 * `bench:k8s --node-signal SOURCE`: the node faults are one source's signal, set as that source sets it on
 * a real cluster, instead of HyperPod's label: NVSentinel's GpuMemWatch condition, node-problem-detector's
 * KernelDeadlock, the EKS agent's AcceleratedHardwareReady=False (NvidiaXID79Error), Kubernetes' unreachable
 * taint (what its lifecycle controller writes), or an Xid 79 on a stand-in DCGM exporter's GPU 0, scraped
 * by a real Prometheus the operator polls (PROMETHEUS_URL). Each trial is timed from the signal set (the
 * write sent, or the exporter's value changed) to the bench's watch seeing the replacement pod; the p99 over
 * the trials is held to 500 ms for the API-object sources and to a scrape interval + 500 ms for dcgm.
 * The device plugin's row waits a grace period by design, so it is not one of the sources here.
 */
const STRATEGIC = setHeaderOptions("Content-Type", PatchStrategy.StrategicMergePatch);
const MERGE = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
const API_SETTLE_MS = 1500;
/** The operator's default REBOUND_NODE_METRICS_INTERVAL_MS (server/operator/env.ts). */
const METRICS_POLL_MS = 250;

function conditionSetter(core: CoreV1Api, type: string, bad: [string, string], good: [string, string]) {
  const patch = (node: string, [status, reason]: [string, string]) =>
    core.patchNodeStatus(
      {
        name: node,
        body: {
          status: { conditions: [{ type, status, reason, lastTransitionTime: new Date().toISOString() }] },
        },
      },
      STRATEGIC,
    );
  return {
    set: (node: string) => patch(node, bad),
    clear: (node: string) => patch(node, good),
    settleMs: API_SETTLE_MS,
  };
}

export function nodeSignalSetter(input: {
  source: BenchSignalSource;
  kubeConfig: KubeConfig;
  dcgm: BenchDcgm | null;
}): NodeSignalSetter {
  const { source } = input;
  const scraped = source === "dcgm" && input.dcgm ? input.dcgm.scrapeMs : 0;
  return {
    source,
    settleMs: scraped ? scraped + METRICS_POLL_MS + API_SETTLE_MS : API_SETTLE_MS,
    jitterMs: scraped,
    ...setAndClear(input),
  };
}

function setAndClear(input: {
  source: BenchSignalSource;
  kubeConfig: KubeConfig;
  dcgm: BenchDcgm | null;
}): Pick<NodeSignalSetter, "set" | "clear"> {
  const core = input.kubeConfig.makeApiClient(CoreV1Api);
  const taints = (node: string, list: object[]) =>
    core.patchNode({ name: node, body: { spec: { taints: list } } }, MERGE);
  switch (input.source) {
    case "hyperpod":
      return {
        set: (node) => setNodeHealth(core, node, "UnschedulablePendingReboot"),
        clear: (node) => setNodeHealth(core, node, "Schedulable"),
      };
    case "kubernetes":
      return {
        set: (node) => taints(node, [{ key: "node.kubernetes.io/unreachable", effect: "NoExecute" }]),
        clear: (node) => taints(node, []),
      };
    case "nvsentinel":
      return conditionSetter(
        core,
        "GpuMemWatch",
        ["True", "GpuMemWatchIsNotHealthy"],
        ["False", "GpuMemWatchIsHealthy"],
      );
    case "npd":
      return conditionSetter(
        core,
        "KernelDeadlock",
        ["True", "DockerHung"],
        ["False", "KernelHasNoDeadlock"],
      );
    case "eks":
      return conditionSetter(
        core,
        "AcceleratedHardwareReady",
        ["False", "NvidiaXID79Error"],
        ["True", "NvidiaAcceleratedHardwareIsReady"],
      );
    case "dcgm": {
      const dcgm = input.dcgm;
      if (!dcgm) throw new Error("--node-signal dcgm: no stand-in DCGM exporter was started");
      return {
        set: async (node) => dcgm.exporter.setXid(node, 0, 79),
        clear: async (node) => dcgm.exporter.setXid(node, 0, 0),
      };
    }
    default:
      return input.source satisfies never;
  }
}

/** The p99 target: 500 ms from an API object; a scrape interval more from a Prometheus metric. */
export const signalTargetMs = (config: BenchConfig, source: string) =>
  source === "dcgm" ? config.scrapeMs + 500 : 500;

const ms = (value: number) => `${Math.round(value)} ms`;

/** One source's figures over its trials. */
function sourceFigures(config: BenchConfig, source: string, samples: FaultSample[]) {
  const replacement = summarize(samples.map((sample) => sample.replacedAt - sample.patchSentAt));
  const detected = summarize(samples.map((sample) => sample.event.detectedAt.getTime() - sample.patchSentAt));
  const running = summarize(samples.map((sample) => sample.runningAt - sample.patchSentAt));
  // The write's own round trip (the apiserver's answer; ~0 for the exporter): a slow one delays everything.
  const written = summarize(samples.map((sample) => sample.patchDoneAt - sample.patchSentAt));
  const targetMs = signalTargetMs(config, source);
  const met = samples.length > 0 && replacement.p99 < targetMs;
  return {
    source,
    trials: samples.length,
    detectedMs: detected,
    replacementMs: replacement,
    runningMs: running,
    writtenMs: written,
    targetMs,
    met,
  };
}

/** The node-signal run's table (stdout) and its `BENCH k8s-node-signal <json>` line. */
export function reportNodeSignal(input: {
  config: BenchConfig;
  faults: FaultSample[];
  job: { createdAt: number; runningAt: number };
  elapsedMs: number;
}): void {
  const { config, faults } = input;
  const sources = config.nodeSignals.map((source) =>
    sourceFigures(
      config,
      source,
      faults.filter((sample) => sample.source === source),
    ),
  );
  const lines = [
    `bench:k8s --node-signal ${config.nodeSignals.join(",")}: ${config.nodes} pods × ${config.gpusPerNode} GPUs (${config.nodes * config.gpusPerNode} ranks)${config.nodeSignals.includes("dcgm") ? `, Prometheus scraping the DCGM stand-in every ${config.scrapeMs} ms` : ""}`,
    "  source       trials  write answered p99  set → detected p50 / p99   set → replacement pod p50 / p99 / max   target p99   set → Running p50 / p99",
    ...sources.map(
      (f) =>
        `  ${f.source.padEnd(12)} ${String(f.trials).padStart(6)}  ${ms(f.writtenMs.p99).padEnd(19)} ${`${ms(f.detectedMs.p50)} / ${ms(f.detectedMs.p99)}`.padEnd(25)} ${`${ms(f.replacementMs.p50)} / ${ms(f.replacementMs.p99)} / ${ms(f.replacementMs.max)}`.padEnd(39)} ${`< ${f.targetMs} ms ${f.met ? "met" : "MISSED"}`.padEnd(12)} ${ms(f.runningMs.p50)} / ${ms(f.runningMs.p99)}`,
    ),
    ...sources.map(
      (f) =>
        `  ${f.source} trials (→ replacement pod, ms): ${faults
          .filter((sample) => sample.source === f.source)
          .map((sample) => sample.replacedAt - sample.patchSentAt)
          .join(", ")}`,
    ),
    `  job Running ${ms(input.job.runningAt - input.job.createdAt)} after it was created; whole run ${round(input.elapsedMs / 1000)} s`,
  ];
  const json = {
    pods: config.nodes,
    ranks: config.nodes * config.gpusPerNode,
    scrapeMs: config.scrapeMs,
    sources,
  };
  process.stdout.write(`${lines.join("\n")}\nBENCH k8s-node-signal ${JSON.stringify(json)}\n`);
}
