import type { JobRef } from "@/server/cluster/types";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import type { ElasticConfig } from "./config";
import { sizes } from "./config";
import { TEAM_A, TEAM_B } from "./environment";

/**
 * The two jobs. Team A's elastic job: 2 to all nodes' worth of pods, in steps of 2 (replicaIncrementStep),
 * each pod a node's GPUs with one rank per GPU, training priority. Team B's job: `otherPods` pods for
 * `otherSeconds` of steps, then it ends; it comes back at a higher priority (inference), as the work
 * that reclaims its team's GPUs.
 */
export const ELASTIC: JobRef = { namespace: TEAM_A, name: "elastic" };
export const otherJob = (cycle: number): JobRef => ({ namespace: TEAM_B, name: `other-${cycle}` });

export function elasticYaml(config: ElasticConfig): string {
  const { min, max } = sizes(config);
  const base = demoJobYaml({
    name: ELASTIC.name,
    namespace: ELASTIC.namespace,
    nodes: min,
    ranks: config.gpusPerNode,
    stepMs: config.stepMs,
    gracefulSeconds: config.gracefulSeconds,
    tee: true,
    labels: { "kueue.x-k8s.io/priority-class": "training-priority" },
  });
  const policy = [
    "  elasticPolicy:",
    `    minReplicas: ${min}`,
    `    maxReplicas: ${max}`,
    "    replicaIncrementStep: 2",
    `    scalingTimeoutInSeconds: ${config.scalingTimeoutSeconds}`,
    `    gracefulShutdownTimeoutInSeconds: ${config.gracefulSeconds}`,
    "    faultyScaleDownTimeoutInSeconds: 30",
    "",
  ].join("\n");
  const from = base.indexOf("  elasticPolicy:");
  const to = base.indexOf("  runPolicy:");
  const withPolicy = `${base.slice(0, from)}${policy}${base.slice(to)}`;
  return withPolicy.replace(/( {6}replicas: \d+\n)/, `$1      maxReplicas: ${max}\n`);
}

export function otherYaml(config: ElasticConfig, cycle: number): string {
  return demoJobYaml({
    ...otherJob(cycle),
    nodes: config.otherPods,
    ranks: config.gpusPerNode,
    stepMs: config.stepMs,
    steps: Math.round((config.otherSeconds * 1000) / config.stepMs),
    labels: { "kueue.x-k8s.io/priority-class": cycle === 0 ? "training-priority" : "inference-priority" },
  });
}
