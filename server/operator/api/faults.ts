import type { LocalBackend } from "@/server/cluster/local/backend";
import type { JobRef } from "@/server/cluster/types";
import { jobKey } from "@/server/cluster/types";
import type { InjectFaultInput } from "@/server/domain/operator-api/contract";
import type { LiveState } from "@/server/operator/live-state";
import { HttpError } from "./http-utils";

/**
 * Fault injection for the local back end (demo, tests, benchmarks): crash kills a rank's process with
 * SIGKILL (works for any trainer); hang, nan and slow ask the demo trainer through its control file; node
 * fails the virtual node that hosts the rank: by HyperPod's label by default (all its pods die; it reboots
 * later), or by another `source`'s fact (an NVSentinel condition, a cordon, …: server/cluster/local/node-facts.ts),
 * which the operator judges with the node-signal table as on Kubernetes.
 */
export { type InjectFaultInput, injectFaultInputSchema } from "@/server/domain/operator-api/contract";

function locateRank(live: LiveState, ref: JobRef, rank: number) {
  const job = live.get(jobKey(ref));
  if (!job) throw new HttpError(404, `job ${jobKey(ref)} has no live state yet`);
  for (const pod of job.pods) {
    const found = pod.ranks.find((candidate) => candidate.rank === rank);
    if (found) return { pod, pid: found.pid };
  }
  const byGroup = job.pods[Math.floor(rank / Math.max(1, job.ranksTotal / Math.max(1, job.pods.length)))];
  if (byGroup) return { pod: byGroup, pid: null };
  throw new HttpError(404, `rank ${rank} is not part of job ${jobKey(ref)}`);
}

/** Fails the pod's node as `source` says it (HyperPod's label by default); answers what the node now reads. */
function failNode(
  backend: LocalBackend,
  pod: { node: string | null },
  input: Pick<InjectFaultInput, "rank" | "source">,
) {
  const source = input.source ?? "hyperpod";
  const sources = backend.nodeFaultSources();
  if (!sources.includes(source))
    throw new HttpError(
      400,
      `source: the node-signal table has no ${source} rows; expected one of ${sources.join(", ")}`,
    );
  if (!pod.node) throw new HttpError(409, `the pod of rank ${input.rank ?? 0} is not on a node`);
  backend.failNode(pod.node, source);
  return { node: pod.node, source, reason: backend.nodes.get(pod.node)?.verdict?.reason ?? null };
}

export function injectFault(opts: {
  backend: LocalBackend;
  live: LiveState;
  ref: JobRef;
  input: Omit<InjectFaultInput, "by">;
}) {
  const { backend, live, ref, input } = opts;
  const rank = input.rank ?? 0;
  const target = locateRank(live, ref, rank);
  switch (input.kind) {
    case "crash":
      if (target.pid === null) throw new HttpError(409, `rank ${rank} has no running process to crash`);
      process.kill(target.pid, "SIGKILL");
      return { kind: input.kind, rank, pod: target.pod.name, pid: target.pid };
    case "node": {
      const { node, source, reason } = failNode(backend, target.pod, input);
      return { kind: input.kind, rank, pod: target.pod.name, node, source, reason };
    }
    case "hang":
    case "nan":
    case "slow":
      backend.plantTrainerFault(ref, { kind: input.kind, rank: input.rank ?? null });
      return { kind: input.kind, rank: input.rank ?? null, pod: target.pod.name };
    default:
      return input.kind satisfies never;
  }
}
