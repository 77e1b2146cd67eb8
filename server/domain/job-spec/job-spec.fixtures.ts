import { parse as parseYaml } from "yaml";
import type { JobSpecError } from "./job-spec-errors";
import { parseJobObject, parseJobYaml } from "./parse-job";

/**
 * Test manifests (used by the *.test.ts files only). FULL_JOB_YAML sets every spec field of reference
 * 1.2–1.7 and uses all four kinds of log rule: start cut-off, recurring frequency (with a stop pattern),
 * metric threshold, and fault-on-match.
 */
export const FULL_JOB_YAML = String.raw`apiVersion: sagemaker.amazonaws.com/v1
kind: HyperPodPyTorchJob
metadata:
  name: llama-pretrain
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: hyperpod-ns-team-a-localqueue
    kueue.x-k8s.io/priority-class: training-priority
  annotations:
    kueue.x-k8s.io/podset-preferred-topology: topology.k8s.aws/network-node-layer-3
spec:
  nprocPerNode: "8"
  replicaSpecs:
    - name: workers
      replicas: 4
      maxReplicas: 8
      spares: 1
      template:
        metadata:
          labels:
            job-role: trainer
        spec:
          nodeSelector:
            node.kubernetes.io/instance-type: ml.p5.48xlarge
          containers:
            - name: trainer
              image: registry.example.com/llm/train:1.4
              imagePullPolicy: Always
              command: [hyperpodrun, --tee=3, --log_dir=/tmp/hyperpod, train.py]
              ports:
                - containerPort: 8080
              resources:
                limits:
                  nvidia.com/gpu: 8
                  vpc.amazonaws.com/efa: 32
                requests:
                  nvidia.com/gpu: 8
                  memory: 900Gi
  runPolicy:
    cleanPodPolicy: OnlyComplete
    jobMaxRetryCount: 20
    restartPolicy:
      evalPeriodSeconds: 21600
      numRestartBeforeFullJobRestart: 3
      maxFullJobRestarts: 2
      maxNumRepeatOffendersToAvoid: 1
      scaleUpSnoozeTimeInSeconds: 300
    logMonitoringConfiguration:
      - name: TrainingStarted
        logPattern: ".*Experiment configuration.*"
        expectedStartCutOffInSeconds: 180
      - name: StepHang
        logPattern: ".*\\[step (\\d+)\\].*"
        expectedRecurringFrequencyInSeconds: 420
        expectedStartCutOffInSeconds: 900
        stopPattern: ".*Training complete.*"
      - name: SlowThroughput
        logPattern: ".*samples/sec: (\\d+(?:\\.\\d+)?).*"
        metricThreshold: 75
        operator: lteq
        metricEvaluationDataPoints: 20
      - name: CudaOutOfMemory
        logPattern: ".*CUDA out of memory.*"
        faultOnMatch: true
    ttlSecondsAfterFinished: 3600
    activeDeadlineSeconds: 864000
    startupDeadlineSeconds: 1800
    faultDeadlineSeconds: 3600
    suspend: false
    workloadMode: Deployment
  elasticPolicy:
    minReplicas: 4
    maxReplicas: 8
    replicaIncrementStep: 2
    scalingTimeoutInSeconds: 60
    gracefulShutdownTimeoutInSeconds: 600
    faultyScaleDownTimeoutInSeconds: 30
`;

/** The smallest manifest we accept; defaults fill in the rest. */
export const MINIMAL_JOB_YAML = `apiVersion: sagemaker.amazonaws.com/v1
kind: HyperPodPytorchJob
metadata:
  name: tiny
spec:
  replicaSpecs:
    - name: pods
      template:
        spec:
          containers:
            - name: main
`;

/** Replaces exactly one occurrence of `from`, failing loudly if the fixture drifted. */
export function mutate(yaml: string, from: string, to: string): string {
  const index = yaml.indexOf(from);
  if (index < 0 || yaml.indexOf(from, index + 1) >= 0) throw new Error(`fixture must contain "${from}" once`);
  return yaml.slice(0, index) + to + yaml.slice(index + from.length);
}

/** 1-based line where the only occurrence of `needle` ends (a needle may span lines). */
export function lineOf(yaml: string, needle: string): number {
  const index = yaml.indexOf(needle);
  if (index < 0 || yaml.indexOf(needle, index + 1) >= 0) throw new Error(`"${needle}" must occur once`);
  return yaml.slice(0, index + needle.length).split("\n").length;
}

/** The errors of a manifest that must be rejected. */
export function errorsOf(yaml: string): JobSpecError[] {
  const result = parseJobYaml(yaml);
  if (result.ok) throw new Error("expected the manifest to be rejected");
  return result.errors;
}

/** Validates `base` after a one-place text edit, as a plain object (so errors carry no positions). */
export function objectErrorsAfter(from: string, to: string, base = FULL_JOB_YAML): JobSpecError[] {
  const result = parseJobObject(parseYaml(mutate(base, from, to)));
  return result.ok ? [] : result.errors;
}

export function acceptsAfter(from: string, to: string, base = FULL_JOB_YAML): boolean {
  return parseJobObject(parseYaml(mutate(base, from, to))).ok;
}
