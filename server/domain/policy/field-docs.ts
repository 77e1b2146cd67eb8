import type { FieldDoc } from "./types";

/**
 * Hover and completion docs for every runPolicy field (docs/hyperpod-compatibility.md, "The job resource",
 * and docs/hyperpod-compatibility.md, "Log-rule evaluation"), by path: `restartPolicy.evalPeriodSeconds`,
 * `logMonitoringConfiguration[].logPattern`.
 */
export const FIELD_DOCS: Record<string, FieldDoc> = {
  cleanPodPolicy: {
    summary: "Which pods are deleted when the job ends: All (default), OnlyComplete or None.",
    example: "cleanPodPolicy: All",
  },
  jobMaxRetryCount: {
    summary: "Restarts of any kind the job may have over its life; the next fault fails it. Unset: no cap.",
    example: "jobMaxRetryCount: 10",
  },
  restartPolicy: {
    summary: "How faults escalate: in-place restarts within a sliding window, then a full job restart.",
  },
  "restartPolicy.evalPeriodSeconds": {
    summary: "Length of the sliding window (seconds) in which restarts are counted. Required.",
    example: "evalPeriodSeconds: 3600",
  },
  "restartPolicy.numRestartBeforeFullJobRestart": {
    summary:
      "In-place restarts (or pod replacements) allowed in the window before the next fault restarts the whole job. Unset: never escalates.",
    example: "numRestartBeforeFullJobRestart: 3",
  },
  "restartPolicy.maxFullJobRestarts": {
    summary:
      "Full job restarts allowed over the job's life; the next escalation fails the job. Unset: unlimited.",
    example: "maxFullJobRestarts: 1",
  },
  "restartPolicy.maxNumRepeatOffendersToAvoid": {
    summary: "How many nodes that fault repeatedly are avoided when pods are placed again.",
  },
  "restartPolicy.scaleUpSnoozeTimeInSeconds": {
    summary: "Elastic jobs: seconds to wait after a fault before scaling up again.",
  },
  ttlSecondsAfterFinished: {
    summary: "Seconds a finished job is kept before it is deleted; -1 keeps it forever.",
  },
  activeDeadlineSeconds: { summary: "Seconds the job may run in all before it is failed." },
  startupDeadlineSeconds: {
    summary: "Seconds a start (pods to training) may take before the job is failed.",
  },
  faultDeadlineSeconds: { summary: "Seconds a recovery may take before the job is failed." },
  suspend: { summary: "true stops the job's pods and keeps the job; false resumes it." },
  workloadMode: { summary: "HyperPod's workload mode, passed through unchanged." },
  logMonitoringConfiguration: {
    summary:
      "Log rules: each watches a rank's output for a pattern and faults the job on a hang, a slow metric or a fatal line (at most 32).",
  },
  "logMonitoringConfiguration[].name": {
    summary:
      "The rule's name; faults are reported as LogHang_<name>, LogSlow_<name>, LogFault_<name>. Unique in the editor.",
    example: "name: JobHang",
  },
  "logMonitoringConfiguration[].logPattern": {
    summary:
      "Regular expression (RE2 syntax: linear time, no lookaround or backreferences) matched against each output line. Group 1 is the metric, if any.",
    example: "logPattern: '.*loss=([0-9.]+).*'",
  },
  "logMonitoringConfiguration[].expectedStartCutOffInSeconds": {
    summary: "Hang if no line matches within this many seconds of the start (the rank's first output).",
    example: "expectedStartCutOffInSeconds: 120",
  },
  "logMonitoringConfiguration[].expectedRecurringFrequencyInSeconds": {
    summary: "Hang if no line matches for this many seconds after the last match.",
    example: "expectedRecurringFrequencyInSeconds: 300",
  },
  "logMonitoringConfiguration[].stopPattern": {
    summary: "Once a line matches this pattern the rule stops watching (e.g. training finished).",
    example: "stopPattern: '.*Training complete.*'",
  },
  "logMonitoringConfiguration[].metricThreshold": {
    summary:
      "Threshold the captured value (group 1) is compared to with `operator`; an integer (the agent applies int()).",
    example: "metricThreshold: 100",
  },
  "logMonitoringConfiguration[].operator": {
    summary:
      "Comparison of the captured value with metricThreshold: gt, lt, eq, gteq, lteq. true → a slow data point.",
    example: "operator: lt",
  },
  "logMonitoringConfiguration[].metricEvaluationDataPoints": {
    summary: "Slow data points in a row needed before the rule reports SLOW (default 1).",
    example: "metricEvaluationDataPoints: 5",
  },
  "logMonitoringConfiguration[].faultOnMatch": {
    summary: "true: the first matching line faults the job at once (e.g. CUDA out of memory).",
    example: "faultOnMatch: true",
  },
};
