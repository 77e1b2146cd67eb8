import { describe, expect, it } from "vitest";
import type { ClusterJob } from "@/server/cluster/types";
import { parseJobObject } from "@/server/domain/job-spec/parse-job";
import {
  basePriorityClass,
  buildStepWorkload,
  elasticSteps,
  LABEL_ELASTIC_SIZE,
  sizeOf,
  specPriorityClass,
  stepPriorityClass,
  stepWorkloadName,
} from "./elastic-workloads";
import { buildWorkload, workloadName } from "./workload";

const UID = "0b9c1f3e-7a52-4d1e-9a55-3f0c2b8e6d11";
const GPU = "nvidia.com/gpu";
const template = (extra: { labels?: Record<string, string>; priorityClassName?: string } = {}) => ({
  ...(extra.labels ? { metadata: { labels: extra.labels } } : {}),
  spec: {
    ...(extra.priorityClassName ? { priorityClassName: extra.priorityClassName } : {}),
    containers: [{ name: "t", image: "i", resources: { limits: { [GPU]: 8 } } }],
  },
});

function job(spec: Record<string, unknown>, labels: Record<string, string> = {}): ClusterJob {
  const parsed = parseJobObject({
    apiVersion: "sagemaker.amazonaws.com/v1",
    kind: "HyperPodPyTorchJob",
    metadata: { name: "llama", namespace: "hyperpod-ns-team-a", labels },
    spec,
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed));
  return {
    ref: { namespace: "hyperpod-ns-team-a", name: "llama" },
    uid: UID,
    generation: 1,
    createdAt: new Date(0),
    object: parsed.job,
    status: {},
    deleting: false,
  };
}

/**
 * AWS's elastic example (docs/hyperpod-compatibility.md, "Elastic training"): one `worker` spec, 2 to 8 in
 * steps of 2.
 */
const single = job(
  {
    elasticPolicy: { minReplicas: 2, maxReplicas: 8, replicaIncrementStep: 2 },
    replicaSpecs: [{ name: "worker", replicas: 2, maxReplicas: 8, spares: 1, template: template() }],
  },
  { "kueue.x-k8s.io/priority-class": "training-priority" },
);

/** The partial-preemption shape: `base` (2, high priority) and `elastic` (0 to 6, low priority). */
const partial = job({
  elasticPolicy: { minReplicas: 2, maxReplicas: 8, replicaDiscreteValues: [2, 4, 8] },
  replicaSpecs: [
    { name: "base", replicas: 2, template: template({ priorityClassName: "high-priority" }) },
    {
      name: "elastic",
      replicas: 0,
      maxReplicas: 6,
      template: template({ labels: { "kueue.x-k8s.io/priority-class": "low-priority" } }),
    },
  ],
});

describe("elasticSteps", () => {
  it("is one step per allowed size above minReplicas, holding the pods that size adds", () => {
    expect(elasticSteps(single)).toEqual([
      { size: 4, from: 2, pods: { worker: 2 } },
      { size: 6, from: 4, pods: { worker: 2 } },
      { size: 8, from: 6, pods: { worker: 2 } },
    ]);
  });

  it("grows the elastic spec only in the partial-preemption shape (discrete sizes)", () => {
    expect(elasticSteps(partial)).toEqual([
      { size: 4, from: 2, pods: { elastic: 2 } },
      { size: 8, from: 4, pods: { elastic: 4 } },
    ]);
  });

  it("is empty for a job without elasticPolicy", () => {
    const plain = job({ replicaSpecs: [{ name: "worker", replicas: 2, template: template() }] });
    expect(elasticSteps(plain)).toEqual([]);
  });
});

describe("the job's own Workload of an elastic job", () => {
  it("holds the minimum size plus spares, every spec listed", () => {
    const base = buildWorkload(partial, { queueName: "q", priority: null });
    expect(base.spec.podSets.map((set) => [set.name, set.count])).toEqual([
      ["base", 2],
      ["elastic", 0],
    ]);
    const grown = job({
      elasticPolicy: { minReplicas: 2, maxReplicas: 8 },
      replicaSpecs: [{ name: "worker", replicas: 4, spares: 1, template: template() }],
    });
    // Submitted at 4 but allowed down to 2: the base is 2 (+1 spare), 3 and 4 are steps.
    expect(buildWorkload(grown, { queueName: "q", priority: null }).spec.podSets[0]?.count).toBe(3);
    expect(elasticSteps(grown).map((step) => step.size)).toEqual([3, 4, 5, 6, 7, 8]);
  });
});

describe("step Workloads", () => {
  it("are named after the job's Workload and the size, and fit 253 characters", () => {
    expect(stepWorkloadName({ name: "llama", uid: UID }, 4)).toBe(
      `${workloadName({ name: "llama", uid: UID })}-4`,
    );
    const long = { name: "x".repeat(253), uid: UID };
    const name = stepWorkloadName(long, 128);
    expect(name).toHaveLength(253);
    expect(name.endsWith(`${workloadName(long).slice(-6)}-128`)).toBe(true);
  });

  it("are owned by the job, labelled with the job's uid and size, sized to the step, in the job's queue", () => {
    const step = elasticSteps(single)[1];
    if (!step) throw new Error("no step");
    const workload = buildStepWorkload(single, step, {
      queueName: "hyperpod-ns-team-a-localqueue",
      priority: { className: "training-priority", value: 70 },
    });
    expect(workload.metadata).toMatchObject({
      name: `${workloadName({ name: "llama", uid: UID })}-6`,
      namespace: "hyperpod-ns-team-a",
      labels: { "kueue.x-k8s.io/job-uid": UID, [LABEL_ELASTIC_SIZE]: "6" },
      finalizers: ["kueue.x-k8s.io/resource-in-use"],
      ownerReferences: [{ kind: "HyperPodPyTorchJob", name: "llama", uid: UID, controller: true }],
    });
    expect(workload.spec).toMatchObject({
      queueName: "hyperpod-ns-team-a-localqueue",
      priorityClassName: "training-priority",
      priorityClassSource: "kueue.x-k8s.io/workloadpriorityclass",
      priority: 69, // one below the class: steps go before any job's minimum
    });
    // No spares in a step: spares belong to the job's own Workload.
    expect(workload.spec.podSets).toEqual([
      { name: "worker", count: 2, template: single.object.spec.replicaSpecs[0]?.template },
    ]);
    expect(sizeOf(workload)).toBe(6);
    expect(sizeOf(buildWorkload(single, { queueName: "q", priority: null }))).toBeNull();
  });

  it("hold only the specs that grow, without a priority when none is named", () => {
    const step = elasticSteps(partial)[1];
    if (!step) throw new Error("no step");
    const workload = buildStepWorkload(partial, step, { queueName: "q", priority: null });
    expect(workload.spec.podSets.map((set) => [set.name, set.count])).toEqual([["elastic", 4]]);
    expect(workload.spec.priority).toBe(-1);
    expect(workload.spec.priorityClassName).toBeUndefined();
  });
});

describe("a step pinned to its job's flavor", () => {
  it("adds the flavor's node labels to each pod set's node selector, keeping the template's own", () => {
    const pinnedJob = job({
      elasticPolicy: { minReplicas: 1, maxReplicas: 2 },
      replicaSpecs: [
        {
          name: "worker",
          replicas: 1,
          template: {
            spec: { nodeSelector: { zone: "a" }, containers: [{ name: "t", image: "i" }] },
          },
        },
      ],
    });
    const [step] = elasticSteps(pinnedJob);
    if (!step) throw new Error("no step");
    const nodeSelector = { "node.kubernetes.io/instance-type": "ml.p5.48xlarge" };
    const workload = buildStepWorkload(pinnedJob, step, { queueName: "q", priority: null, nodeSelector });
    expect(workload.spec.podSets[0]?.template).toMatchObject({
      spec: { nodeSelector: { zone: "a", "node.kubernetes.io/instance-type": "ml.p5.48xlarge" } },
    });
    // The job's own template is left alone.
    expect(pinnedJob.object.spec.replicaSpecs[0]?.template.spec.nodeSelector).toEqual({ zone: "a" });
  });
});

describe("priority classes", () => {
  it("come from the spec's template label, else its priorityClassName, else the job's label", () => {
    const [base, elastic] = partial.object.spec.replicaSpecs;
    if (!base || !elastic) throw new Error("no specs");
    expect(specPriorityClass(partial, base)).toBe("high-priority");
    expect(specPriorityClass(partial, elastic)).toBe("low-priority");
    const [worker] = single.object.spec.replicaSpecs;
    if (!worker) throw new Error("no spec");
    expect(specPriorityClass(single, worker)).toBe("training-priority");
  });

  it("give the base high and the steps low priority in the partial-preemption shape", () => {
    expect(basePriorityClass(partial)).toBe("high-priority");
    for (const step of elasticSteps(partial)) expect(stepPriorityClass(partial, step)).toBe("low-priority");
  });

  it("give the base the job's label first, a step the class of the last spec with pods at its size", () => {
    const labelled = job(
      {
        elasticPolicy: { minReplicas: 1, maxReplicas: 4 },
        replicaSpecs: [
          {
            name: "base",
            replicas: 1,
            maxReplicas: 2,
            template: template({ priorityClassName: "high-priority" }),
          },
          { name: "elastic", replicas: 0, maxReplicas: 2, template: template() },
        ],
      },
      { "kueue.x-k8s.io/priority-class": "training-priority" },
    );
    expect(basePriorityClass(labelled)).toBe("training-priority");
    expect(elasticSteps(labelled).map((step) => [step.size, stepPriorityClass(labelled, step)])).toEqual([
      [2, "high-priority"], // the base spec grows first
      [3, "training-priority"], // the elastic spec has no class of its own: the job's
      [4, "training-priority"],
    ]);
  });
});
