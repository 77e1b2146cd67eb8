import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseJobYaml } from "@/server/domain/job-spec/parse-job";
import { jobAtSize, sizesOf } from "./sized-job";
import { baseWorkload, stepWorkload } from "./step-workload";

const read = (name: string) =>
  readFileSync(new URL(`../../../examples/jobs/${name}`, import.meta.url), "utf8");

describe("examples/jobs/elastic-demo.yaml", () => {
  it("parses, sizes 1 to 4, a base of one node and steps of one node each", () => {
    const result = parseJobYaml(read("elastic-demo.yaml"));
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const job = result.job;
    expect(sizesOf(job)).toEqual([1, 2, 3, 4]);
    expect(jobAtSize(job, 3).spec.replicaSpecs[0]?.replicas).toBe(3);
    const base = baseWorkload(job, { team: "vision", createdAt: 0 });
    expect(base).toMatchObject({ key: "hyperpod-ns-vision/elastic-demo", priorityClass: "training" });
    expect(base.request["nvidia.com/gpu"]).toBe(4);
    const step = stepWorkload(job, { from: 2, to: 3, team: "vision", createdAt: 0 });
    expect(step).toMatchObject({ key: "hyperpod-ns-vision/elastic-demo#3", priorityClass: "training" });
    expect(step.request["nvidia.com/gpu"]).toBe(4);
  });
});
