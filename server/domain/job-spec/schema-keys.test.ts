import { describe, expect, it } from "vitest";
import { hyperPodPyTorchJobSchema } from "./job-spec.schema";
import { formatPath } from "./job-spec-errors";
import { knownKeysAt, suggestKey } from "./schema-keys";

describe("knownKeysAt", () => {
  it("walks through defaults, prefaults, optionals and arrays", () => {
    expect(knownKeysAt(hyperPodPyTorchJobSchema, ["spec", "runPolicy", "restartPolicy"])).toEqual([
      "evalPeriodSeconds",
      "numRestartBeforeFullJobRestart",
      "maxFullJobRestarts",
      "maxNumRepeatOffendersToAvoid",
      "scaleUpSnoozeTimeInSeconds",
    ]);
    expect(
      knownKeysAt(hyperPodPyTorchJobSchema, ["spec", "runPolicy", "logMonitoringConfiguration", 0]),
    ).toContain("faultOnMatch");
    expect(knownKeysAt(hyperPodPyTorchJobSchema, ["spec", "nprocPerNode"])).toEqual([]);
    expect(knownKeysAt(hyperPodPyTorchJobSchema, ["nowhere", "at", "all"])).toEqual([]);
  });
});

describe("suggestKey", () => {
  it("suggests close keys only", () => {
    expect(suggestKey("evalPeriodSecond", ["evalPeriodSeconds", "maxFullJobRestarts"])).toBe(
      "evalPeriodSeconds",
    );
    expect(suggestKey("EvalPeriodSeconds", ["evalPeriodSeconds"])).toBe("evalPeriodSeconds");
    expect(suggestKey("foo", ["name", "replicas"])).toBeUndefined();
  });
});

describe("formatPath", () => {
  it("uses dots, indices and quoted odd keys", () => {
    expect(
      formatPath(["spec", "replicaSpecs", 0, "template", "metadata", "labels", "app.kubernetes.io/name"]),
    ).toBe('spec.replicaSpecs[0].template.metadata.labels["app.kubernetes.io/name"]');
    expect(formatPath([])).toBe("");
  });
});
