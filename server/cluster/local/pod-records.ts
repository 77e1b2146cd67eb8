import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { ClusterPod, PodPhase } from "@/server/cluster/types";

/** What the local back end remembers about a pod, persisted so a restarted operator re-adopts live agents. */
export const podRecordSchema = z.object({
  name: z.string(),
  namespace: z.string(),
  job: z.string(),
  replicaSpec: z.string(),
  index: z.number().int(),
  node: z.string(),
  gpus: z.number().int().min(0),
  pid: z.number().int(),
  port: z.number().int(),
  createdAt: z.number(),
  finishedAt: z.number().nullable(),
  phase: z.enum(["Pending", "Running", "Succeeded", "Failed", "Unknown"]),
  /** The agent's own output (stdout/stderr), read back for the event when it exits. */
  log: z.string().optional(),
  /** Where this attempt's output begins in `log` (bytes): the file is appended to by every attempt. */
  logFrom: z.number().int().min(0).optional(),
  /** Killed by the operator's clean stop (not a fault): the pod resumes at the next start. */
  stoppedOnPurpose: z.boolean().optional(),
  /**
   * Who its processes run as under a root operator (pod-identity.ts): a restarted operator holds these
   * again for the pods it adopts. Absent: as the operator.
   */
  runAs: z
    .object({
      user: z.string(),
      uid: z.number().int(),
      group: z.string(),
      gid: z.number().int(),
      jobUid: z.string(),
    })
    .optional(),
});
export type PodRecord = z.infer<typeof podRecordSchema>;

export function toClusterPod(record: PodRecord): ClusterPod {
  return {
    name: record.name,
    namespace: record.namespace,
    job: record.job,
    replicaSpec: record.replicaSpec,
    index: record.index,
    node: record.node,
    phase: record.phase as PodPhase,
    agentUrl: `http://127.0.0.1:${record.port}`,
    ip: "127.0.0.1",
    createdAt: record.createdAt,
    finishedAt: record.finishedAt,
  };
}

export function loadPodRecords(file: string): PodRecord[] {
  if (!existsSync(file)) return [];
  const parsed = z.array(podRecordSchema).safeParse(JSON.parse(readFileSync(file, "utf8")));
  return parsed.success ? parsed.data : [];
}

/** Atomic write (rename), so a crash mid-write never leaves a torn file. */
function writeAtomically(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, file);
}

export function savePodRecords(file: string, records: readonly PodRecord[]): void {
  writeAtomically(file, JSON.stringify(records));
}

/**
 * The running agents as a Prometheus `file_sd_configs` file: one target per local pod's agent `/metrics`,
 * labelled like a Kubernetes scrape config would (namespace, job_name from the HPJob label, pod, node).
 */
export function savePrometheusTargets(file: string, records: readonly PodRecord[]): void {
  const targets = records
    .filter((record) => record.phase === "Running")
    .map((record) => ({
      targets: [`127.0.0.1:${record.port}`],
      labels: { namespace: record.namespace, job_name: record.job, pod: record.name, node: record.node },
    }));
  writeAtomically(file, `${JSON.stringify(targets, null, 2)}\n`);
}
