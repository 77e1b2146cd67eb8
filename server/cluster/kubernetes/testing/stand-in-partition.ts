/**
 * Which of several stand-in agent processes serves a pod. bench:k8s spreads its stand-ins over a few
 * processes so that one process's burst of /stop and /start work does not stall every agent's heartbeats
 * (real agents do not share a process). Each process serves the pods of its own part only; the bench sends a
 * pod's freeze or fault to the process that owns it.
 *
 * A job's pods are named `<job>-<replica spec>-<index>` (objects.ts podName) and a replacement keeps its
 * pod's name, so the owner is the index plus a hash of the rest of the name (with the namespace), mod the
 * count: a job's consecutive pods go to consecutive processes (an even split), and the hash keeps small jobs
 * from all starting at process 0. A name with no trailing index goes by its hash alone.
 */
export type StandInPartition = {
  /** This process's part, 0 ≤ index < count. */
  index: number;
  /** How many processes share the pods. */
  count: number;
};

/** Throws unless `count` is a positive integer and `index` one of 0 … count − 1. */
export function checkPartition(partition: StandInPartition): StandInPartition {
  const { index, count } = partition;
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(index) || index < 0 || index >= count)
    throw new Error(`stand-in partition: expected 0 <= index < count, got ${index} of ${count}`);
  return partition;
}

/** FNV-1a (32 bits) of the text's UTF-16 code units: the same number in every process. */
function hash32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Up to 9 digits, so that hash + index stays an exact integer. */
const TRAILING_INDEX = /^(.*)-(\d{1,9})$/;

/** The part (0 … count − 1) that owns the pod `namespace/name`. */
export function standInOwner(pod: { namespace: string; name: string }, count: number): number {
  checkPartition({ index: 0, count });
  const match = TRAILING_INDEX.exec(pod.name);
  if (!match) return hash32(`${pod.namespace}/${pod.name}`) % count;
  return (hash32(`${pod.namespace}/${match[1]}`) + Number(match[2])) % count;
}

/** Whether this part serves the pod; every pod is owned by exactly one part of a count. */
export function ownsPod(partition: StandInPartition, pod: { namespace: string; name: string }): boolean {
  return standInOwner(pod, partition.count) === partition.index;
}
