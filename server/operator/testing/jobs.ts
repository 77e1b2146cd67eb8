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
}): string {
  const annotations = Object.entries(opts.annotations ?? {});
  const annotationLines =
    annotations.length === 0
      ? ""
      : `  annotations:\n${annotations.map(([key, value]) => `    ${key}: ${JSON.stringify(value)}\n`).join("")}`;
  return `apiVersion: sagemaker.amazonaws.com/v1
kind: HyperPodPyTorchJob
metadata:
  name: ${opts.name}
  namespace: ${opts.namespace ?? "hyperpod-ns-llm-research"}
${annotationLines}spec:
  nprocPerNode: "${opts.ranks}"
  replicaSpecs:
    - name: workers
      replicas: ${opts.nodes}
      template:
        spec:
          containers:
            - name: trainer
              image: rebound/demo:latest
              command: ["npx", "rebound-agent", "--nproc-per-node", "${opts.ranks}", "--server-port", "8080", "--shutdown-timeout", "5"]
              args: ["examples/trainer/dist/demo-trainer.mjs", "--steps", "0", "--step-ms", "${opts.stepMs ?? 100}"]
              resources:
                limits:
                  nvidia.com/gpu: ${opts.gpusPerPod ?? opts.ranks}
  runPolicy:
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
