/** `  <key>:` and one line per entry, or nothing when there are none. */
function mapLines(key: string, entries: Record<string, string> | undefined): string {
  const list = Object.entries(entries ?? {});
  if (list.length === 0) return "";
  return `  ${key}:\n${list.map(([name, value]) => `    ${name}: ${JSON.stringify(value)}\n`).join("")}`;
}

function elasticLines(nodes: number, gracefulSeconds: number | undefined): string {
  if (gracefulSeconds === undefined) return "";
  return `  elasticPolicy:\n    maxReplicas: ${nodes}\n    gracefulShutdownTimeoutInSeconds: ${gracefulSeconds}\n`;
}

/** A demo-trainer job for tests and benchmarks: `nodes` pods × `ranks` local ranks, rules the trainer trips. */
export function demoJobYaml(opts: {
  name: string;
  nodes: number;
  ranks: number;
  gpusPerPod?: number;
  restartsBeforeFullRestart?: number;
  hangSeconds?: number;
  stepMs?: number;
  /** Default: the LLM Research team's namespace. */
  namespace?: string;
  /** metadata.annotations (e.g. rebound.dev/max-restarts-without-progress). */
  annotations?: Record<string, string>;
  /** metadata.labels (e.g. kueue.x-k8s.io/priority-class). */
  labels?: Record<string, string>;
  /** Steps before the trainer finishes (default 0: forever). */
  steps?: number;
  /** spec.elasticPolicy.gracefulShutdownTimeoutInSeconds (with maxReplicas = nodes). */
  gracefulSeconds?: number;
  /** The agent copies the workers' output into its own (torchrun --tee 3). */
  tee?: boolean;
}): string {
  const tee = opts.tee ? ', "--tee", "3"' : "";
  return `apiVersion: sagemaker.amazonaws.com/v1
kind: HyperPodPyTorchJob
metadata:
  name: ${opts.name}
  namespace: ${opts.namespace ?? "hyperpod-ns-llm-research"}
${mapLines("annotations", opts.annotations)}${mapLines("labels", opts.labels)}spec:
  nprocPerNode: "${opts.ranks}"
  replicaSpecs:
    - name: workers
      replicas: ${opts.nodes}
      template:
        spec:
          containers:
            - name: trainer
              image: rebound/demo:latest
              command: ["npx", "rebound-agent", "--nproc-per-node", "${opts.ranks}", "--server-port", "8080", "--shutdown-timeout", "5"${tee}]
              args: ["examples/trainer/dist/demo-trainer.mjs", "--steps", "${opts.steps ?? 0}", "--step-ms", "${opts.stepMs ?? 100}"]
              resources:
                limits:
                  nvidia.com/gpu: ${opts.gpusPerPod ?? opts.ranks}
${elasticLines(opts.nodes, opts.gracefulSeconds)}  runPolicy:
    jobMaxRetryCount: 100
    restartPolicy:
      numRestartBeforeFullJobRestart: ${opts.restartsBeforeFullRestart ?? 10}
      evalPeriodSeconds: 3600
      maxFullJobRestarts: 5
    logMonitoringConfiguration:
      - name: JobHang
        logPattern: ".*step=(\\\\d+).*"
        expectedRecurringFrequencyInSeconds: ${opts.hangSeconds ?? 2}
      - name: LossNaN
        logPattern: ".*loss=(nan|inf).*"
        faultOnMatch: true
`;
}
