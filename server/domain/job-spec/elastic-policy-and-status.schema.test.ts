import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import {
  acceptsAfter,
  FULL_JOB_YAML,
  MINIMAL_JOB_YAML,
  mutate,
  objectErrorsAfter,
} from "./job-spec.fixtures";
import { hyperPodPyTorchJobSchema } from "./job-spec.schema";
import { parseJobObject } from "./parse-job";

describe("elasticPolicy", () => {
  it("rejects minReplicas above maxReplicas", () => {
    expect(objectErrorsAfter("minReplicas: 4", "minReplicas: 9")).toEqual([
      { path: "spec.elasticPolicy.minReplicas", message: "minReplicas (9) must not exceed maxReplicas (8)" },
    ]);
  });

  it("checks discrete values are positive and at most maxReplicas", () => {
    const from = "replicaIncrementStep: 2";
    expect(acceptsAfter(from, "replicaDiscreteValues: [4, 6, 8]")).toBe(true);
    expect(objectErrorsAfter(from, "replicaDiscreteValues: [4, 0, 16]")).toEqual([
      { path: "spec.elasticPolicy.replicaDiscreteValues[1]", message: "expected a positive integer, got 0" },
      { path: "spec.elasticPolicy.replicaDiscreteValues[2]", message: "value 16 exceeds maxReplicas (8)" },
    ]);
  });

  it("requires maxReplicas", () => {
    expect(
      objectErrorsAfter("    maxReplicas: 8\n    replicaIncrementStep", "    replicaIncrementStep"),
    ).toEqual([{ path: "spec.elasticPolicy.maxReplicas", message: 'missing required field "maxReplicas"' }]);
  });

  it("defaults an absent minReplicas to the replica count, as HyperPod's CLI writes it", () => {
    const yaml = mutate(FULL_JOB_YAML, "    minReplicas: 4\n", "");
    const result = parseJobObject(parseYaml(yaml));
    expect(result.ok && result.job.spec.elasticPolicy?.minReplicas).toBe(4);
    const given = parseJobObject(parseYaml(mutate(FULL_JOB_YAML, "minReplicas: 4", "minReplicas: 2")));
    expect(given.ok && given.job.spec.elasticPolicy?.minReplicas).toBe(2);
  });

  it("refuses a defaulted minReplicas above maxReplicas, naming the field", () => {
    const base = mutate(FULL_JOB_YAML, "    minReplicas: 4\n", "");
    expect(objectErrorsAfter("maxReplicas: 8\n    replica", "maxReplicas: 3\n    replica", base)).toEqual(
      expect.arrayContaining([
        {
          path: "spec.elasticPolicy.minReplicas",
          message:
            "minReplicas defaults to replicas (4), which exceeds maxReplicas (3); set minReplicas or raise maxReplicas",
        },
      ]),
    );
  });
});

describe("status", () => {
  const status = {
    conditions: [
      { type: "Running", status: "True", reason: "Running", lastTransitionTime: "2025-06-17T05:51:29Z" },
    ],
    restartCount: 1,
    restartStatus: { currentEvalPeriod: 1, fullJobRestartCount: 0, restartCount: 1 },
    latestFaultyPodInstanceList: {
      restartType: "PLR",
      faultyPodList: ["tiny-pods-0"],
      faultyRankList: [0, 1],
    },
    podSets: [{ count: 2 }],
    writtenByAnotherOperator: { anything: true },
  };
  const withStatus = (value: unknown) => ({ ...parseYaml(MINIMAL_JOB_YAML), status: value });

  it("is lenient: unknown keys pass through and podSets get their default name", () => {
    const result = hyperPodPyTorchJobSchema.parse(withStatus(status));
    expect(result.status).toEqual({ ...status, podSets: [{ name: "main", count: 2 }] });
  });

  it("still checks the shapes the console reads", () => {
    const bad = { ...status, restartStatus: { currentEvalPeriod: 1, restartCount: 1 } };
    expect(parseJobObject(withStatus(bad))).toEqual({
      ok: false,
      errors: [
        {
          path: "status.restartStatus.fullJobRestartCount",
          message: 'missing required field "fullJobRestartCount"',
        },
      ],
    });
    const badCondition = { conditions: [{ type: "Running", status: "Yes" }] };
    expect(parseJobObject(withStatus(badCondition))).toMatchObject({
      ok: false,
      errors: [{ path: "status.conditions[0].status" }],
    });
  });
});
