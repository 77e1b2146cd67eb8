import { jobSize, NPROC_PER_NODE_ENV } from "@/server/domain/job-spec/job-size";
import type { HyperPodPyTorchJob } from "@/server/domain/job-spec/job-spec.schema";

/**
 * What HyperPod's training operator adds to every container of a job's pods, as the unmodified
 * `hyperpod-elastic-agent` needs it (both back ends use this):
 * - `NNODES`: the job's node count when the pod is made (the sum of `replicas`, spares not counted; an
 *   elastic job at its size then; the same as `/start`'s `nnodes`). hyperpodrun's rendezvous backend reads
 *   `int(os.environ["NNODES"])` once, when it starts, and exits without it; AWS's sample jobs never set it.
 *   Every `/start` and `/update` replaces it with the request's `nnodes` (set_rdzv_info), and the WORLD_SIZE
 *   it gives workers is computed from that, so an elastic pod kept across a scaling needs no new value.
 * - `PET_NPROC_PER_NODE`: `spec.nprocPerNode` as written ("auto" when absent, the CRD's default), as
 *   Kubeflow's PyTorchJob, whose spec HyperPod's follows, gives it to torchrun. hyperpodrun's launcher
 *   flags are torchrun's (`get_args_parser`), each of which defaults to its `PET_<FLAG>` variable, so a
 *   command without `--nproc-per-node` runs the spec's count; a flag in the command wins
 *   (docs/hyperpod-compatibility.md, "Ranks per pod (nprocPerNode)"). Our agent reads it the same way (server/agent/cli-env.ts).
 * - `HYPERPOD_SIGNAL_COORDINATION=distributed`, for jobs with an `elasticPolicy` only: without it
 *   `elastic_event_detected()` never reports the graceful-stop signal
 *   (docs/hyperpod-compatibility.md, "Elastic training").
 * A value the container's own `env` sets wins: HyperPod's operator fills in, it does not override.
 */
export type InjectedEnv = Record<string, string>;

export function operatorInjectedEnv(job: HyperPodPyTorchJob): InjectedEnv {
  return {
    NNODES: String(jobSize(job).nodes),
    [NPROC_PER_NODE_ENV]: job.spec.nprocPerNode,
    ...(job.spec.elasticPolicy ? { HYPERPOD_SIGNAL_COORDINATION: "distributed" } : {}),
  };
}

type EnvVar = { name?: unknown };

/**
 * A container's `env` list with the injected variables appended, those the container already names left
 * out (Kubernetes keeps the last of two same-named entries, so appending a duplicate would override).
 */
export function withInjectedEnv(env: unknown, injected: InjectedEnv): unknown[] {
  const own = Array.isArray(env) ? (env as EnvVar[]) : [];
  const named = new Set(own.map((item) => item.name));
  const added = Object.entries(injected)
    .filter(([name]) => !named.has(name))
    .map(([name, value]) => ({ name, value }));
  return [...own, ...added];
}
