import { describe, expect, it } from "vitest";
import { scheduler } from "./governance.fixtures";
import { checkPriorityClass, priorityOf } from "./priority";
import { formatQuantity, parseQuantity } from "./quantity";
import { type GovernedJob, QuantityError, teamOfNamespace, workloadOf } from "./workload";

const pod = (resources: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  spec: { containers: [{ name: "main", resources }], ...extra },
});

function job(
  replicaSpecs: GovernedJob["spec"]["replicaSpecs"],
  labels?: Record<string, string>,
): GovernedJob {
  return { metadata: { name: "llama", namespace: "hyperpod-ns-research", labels }, spec: { replicaSpecs } };
}

describe("parseQuantity / formatQuantity", () => {
  it.each([
    ["500m", 0.5],
    ["2", 2],
    [4, 4],
    ["64Gi", 64 * 2 ** 30],
    ["1.5Gi", 1.5 * 2 ** 30],
    ["128M", 128e6],
    ["1e3", 1000],
    ["100Ki", 102_400],
  ])("%s → %d", (text, value) => expect(parseQuantity(text)).toBe(value));

  it.each(["", "abc", "5 Gi", "1.2.3", "Gi"])("%j is not a quantity", (text) =>
    expect(parseQuantity(text)).toBeNull(),
  );

  it("writes amounts as Kubernetes does", () => {
    expect(formatQuantity("memory", 64 * 2 ** 30)).toBe("64Gi");
    expect(formatQuantity("cpu", 0.5)).toBe("500m");
    expect(formatQuantity("nvidia.com/gpu", 4)).toBe("4");
  });
});

describe("workloadOf", () => {
  it("counts (replicas + spares) × the pod's requests, limits standing in for missing requests", () => {
    const workload = workloadOf(
      job(
        [
          {
            replicas: 2,
            spares: 1,
            template: pod({
              limits: { "nvidia.com/gpu": "8", cpu: "500m", memory: "64Gi" },
              requests: { cpu: "250m" },
            }),
          },
          {
            replicas: 1,
            template: pod({ requests: { cpu: "2", "vpc.amazonaws.com/efa": 1, "ephemeral-storage": "1Gi" } }),
          },
        ],
        { "kueue.x-k8s.io/priority-class": "training-priority" },
      ),
      { team: "research", createdAt: 42 },
    );
    expect(workload).toEqual({
      key: "hyperpod-ns-research/llama",
      team: "research",
      priorityClass: "training",
      createdAt: 42,
      request: { "nvidia.com/gpu": 24, cpu: 2.75, memory: 3 * 64 * 2 ** 30, "vpc.amazonaws.com/efa": 1 },
      flavors: null,
    });
  });

  it("a larger init container raises the pod's request", () => {
    const template = {
      spec: {
        containers: [{ name: "main", resources: { requests: { cpu: "1" } } }],
        initContainers: [{ name: "warm", resources: { requests: { cpu: "3" } } }],
      },
    };
    expect(workloadOf(job([{ replicas: 2, template }]), { team: "t", createdAt: 0 }).request).toEqual({
      cpu: 6,
    });
  });

  it("reads the instance type from the node selector; different ones leave no flavor", () => {
    const on = (type: string) => pod({}, { nodeSelector: { "node.kubernetes.io/instance-type": type } });
    const one = workloadOf(job([{ replicas: 1, template: on("ml.p5.48xlarge") }]), {
      team: "t",
      createdAt: 0,
    });
    expect(one.flavors).toEqual(["ml.p5.48xlarge"]);
    const two = job([
      { replicas: 1, template: on("ml.p5.48xlarge") },
      { replicas: 1, template: on("ml.g5.12xlarge") },
    ]);
    expect(workloadOf(two, { team: "t", createdAt: 0 }).flavors).toEqual([]);
  });

  it("a job without a priority class label has none", () => {
    expect(
      workloadOf(job([{ replicas: 1, template: pod({}) }]), { team: "t", createdAt: 0 }).priorityClass,
    ).toBeNull();
  });

  it("names the field of a request that is not a quantity", () => {
    const bad = job([{ replicas: 1, template: pod({ limits: { "nvidia.com/gpu": "eight" } }) }]);
    expect(() => workloadOf(bad, { team: "t", createdAt: 0 })).toThrow(QuantityError);
    expect(() => workloadOf(bad, { team: "t", createdAt: 0 })).toThrow(
      'spec.replicaSpecs[0].template.spec.containers[0].resources.limits.nvidia.com/gpu: expected a Kubernetes quantity such as "500m", "8" or "64Gi", got "eight"',
    );
  });
});

describe("teamOfNamespace", () => {
  it.each([
    ["hyperpod-ns-team-a", "team-a"],
    ["hyperpod-ns-research", "research"],
    ["default", null],
    ["hyperpod-ns-", null],
    ["hyperpod-ns-Bad_Name", null],
  ])("%s → %s", (namespace, team) => expect(teamOfNamespace(namespace)).toBe(team));
});

describe("priority classes", () => {
  const settings = scheduler();

  it("a defined class has its weight, none is 0", () => {
    expect(priorityOf({ priorityClass: "inference" }, settings)).toBe(90);
    expect(priorityOf({ priorityClass: "training-priority" }, settings)).toBe(70);
    expect(priorityOf({ priorityClass: null }, settings)).toBe(0);
  });

  it("an unknown class is refused with the defined set listed", () => {
    expect(checkPriorityClass(null, settings)).toEqual({ ok: true });
    expect(checkPriorityClass("training", settings)).toEqual({ ok: true });
    expect(checkPriorityClass("urgent", settings)).toEqual({
      ok: false,
      message:
        'priority class "urgent" is not defined in the cluster policy; defined: inference, training, experimentation',
    });
    expect(checkPriorityClass("x", scheduler({ priorityClasses: [] }))).toEqual({
      ok: false,
      message: 'priority class "x" is not defined in the cluster policy; no priority classes are defined',
    });
  });
});
