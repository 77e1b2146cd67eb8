import type { V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { LABEL_JOB } from "./objects";
import { createPodIndex } from "./pod-index";

const pod = (
  name: string,
  opts: { job?: string; node?: string; gpus?: number; phase?: string; deleting?: boolean; rv?: string } = {},
): V1Pod => ({
  metadata: {
    name,
    namespace: "ns",
    resourceVersion: opts.rv ?? "1",
    labels: opts.job ? { [LABEL_JOB]: opts.job } : {},
    ...(opts.deleting ? { deletionTimestamp: new Date(0) } : {}),
  },
  spec: {
    ...(opts.node ? { nodeName: opts.node } : {}),
    containers: [{ name: "c", resources: { limits: { "nvidia.com/gpu": String(opts.gpus ?? 0) } } }],
  },
  status: { phase: opts.phase ?? "Running" },
});

/** The full scans the index replaces, over the same store. */
function scans(store: Map<string, V1Pod>) {
  const used = new Map<string, number>();
  for (const p of store.values()) {
    const terminal =
      p.status?.phase === "Succeeded" || p.status?.phase === "Failed" || !!p.metadata?.deletionTimestamp;
    const node = p.spec?.nodeName;
    const gpus = Number(p.spec?.containers[0]?.resources?.limits?.["nvidia.com/gpu"] ?? 0);
    if (node && !terminal && gpus > 0) used.set(node, (used.get(node) ?? 0) + gpus);
  }
  const jobPods = (job: string) =>
    [...store.values()].filter((p) => p.metadata?.labels?.[LABEL_JOB] === job).map((p) => p.metadata?.name);
  return { used, jobPods };
}

describe("the pod index", () => {
  it("agrees with a full scan of the store through adds, updates, moves between jobs and deletes", () => {
    const index = createPodIndex();
    const store = new Map<string, V1Pod>();
    const put = (object: V1Pod) => {
      const key = `ns/${object.metadata?.name}`;
      index.onStore(key, store.get(key), object);
      store.set(key, object);
    };
    const drop = (name: string) => {
      const key = `ns/${name}`;
      index.onStore(key, store.get(key), undefined);
      store.delete(key);
    };
    const check = () => {
      const { used, jobPods } = scans(store);
      expect(new Map(index.gpusInUse())).toEqual(used);
      // The same pods; a pod that moved to another job comes last there (order tested below).
      for (const job of ["a", "b"])
        expect(
          index
            .jobPods("ns", job)
            .map((p) => p.metadata?.name)
            .sort(),
        ).toEqual(jobPods(job).sort());
    };

    put(pod("a-0", { job: "a", node: "n0", gpus: 8 }));
    put(pod("a-1", { job: "a", node: "n1", gpus: 8 }));
    put(pod("other", { node: "n1", gpus: 0 }));
    put(pod("b-0", { job: "b", gpus: 4 }));
    check();
    put(pod("b-0", { job: "b", node: "n2", gpus: 4, rv: "2" }));
    put(pod("a-0", { job: "a", node: "n0", gpus: 8, deleting: true, rv: "2" }));
    check();
    expect(index.gpusInUse().get("n0")).toBeUndefined();
    put(pod("a-1", { job: "b", node: "n1", gpus: 8, rv: "3" }));
    check();
    put(pod("b-0", { job: "b", node: "n2", gpus: 4, phase: "Failed", rv: "4" }));
    drop("a-0");
    drop("a-1");
    check();
    expect(index.jobPods("ns", "a")).toEqual([]);
    expect(index.jobPods("other-ns", "b")).toEqual([]);
  });

  it("answers a job's same list until one of its pods changes, whatever other jobs' pods do", () => {
    const index = createPodIndex();
    const first = pod("x-0", { job: "x" });
    index.onStore("ns/x-0", undefined, first);
    index.onStore("ns/x-1", undefined, pod("x-1", { job: "x" }));
    const before = index.jobPods("ns", "x");
    expect(index.jobPods("ns", "x")).toBe(before);
    index.onStore("ns/y-0", undefined, pod("y-0", { job: "y" }));
    expect(index.jobPods("ns", "x")).toBe(before);
    const moved = pod("x-0", { job: "x", node: "n0", rv: "2" });
    index.onStore("ns/x-0", first, moved);
    const after = index.jobPods("ns", "x");
    expect(after).not.toBe(before);
    expect(after[0]).toBe(moved);
    expect(Object.isFrozen(after)).toBe(true);
    index.onStore("ns/x-1", index.jobPods("ns", "x")[1], undefined);
    expect(index.jobPods("ns", "x").map((p) => p.metadata?.name)).toEqual(["x-0"]);
  });

  it("keeps a pod's place in its job's order when it changes", () => {
    const index = createPodIndex();
    const first = pod("x-0", { job: "x" });
    index.onStore("ns/x-0", undefined, first);
    index.onStore("ns/x-1", undefined, pod("x-1", { job: "x" }));
    index.onStore("ns/x-0", first, pod("x-0", { job: "x", node: "n0", rv: "2" }));
    expect(index.jobPods("ns", "x").map((p) => p.metadata?.name)).toEqual(["x-0", "x-1"]);
  });
});
