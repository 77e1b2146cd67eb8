import { describe, expect, it } from "vitest";
import YAML from "yaml";
import { parseJobYaml } from "@/server/domain/job-spec/parse-job";
import { goodputJobYaml } from "./job";

const base = { nodes: 8, ranksPerNode: 8, stepMs: 100, hangSeconds: 2, checkpointEvery: 50 };

type Doc = {
  spec: {
    replicaSpecs: {
      template: {
        spec: { containers: { command: string[]; args: string[]; env: { name: string; value: string }[] }[] };
      };
    }[];
    runPolicy: { restartPolicy: { numRestartBeforeFullJobRestart: number } };
  };
};

const container = (yaml: string) => {
  const doc = YAML.parse(yaml) as Doc;
  return { doc, container: doc.spec.replicaSpecs[0]?.template.spec.containers[0] };
};

describe("goodputJobYaml", () => {
  it("full restart: every fault escalates to a full job restart", () => {
    const { doc, container: c } = container(goodputJobYaml({ ...base, name: "g-full", mode: "full" }));
    expect(doc.spec.runPolicy.restartPolicy.numRestartBeforeFullJobRestart).toBe(0);
    expect(c?.command).toContain("--tee");
    expect(c?.command).not.toContain("--inprocess-restart");
    expect(c?.args.join(" ")).toContain("--checkpoint-every 50");
  });

  it("in-place: no escalation within the run; peer: HyperPod's in-process flag, its env and peer recovery", () => {
    const inplace = container(goodputJobYaml({ ...base, name: "g-inplace", mode: "inplace" }));
    expect(inplace.doc.spec.runPolicy.restartPolicy.numRestartBeforeFullJobRestart).toBe(1000);
    expect(inplace.container?.env).toContainEqual({ name: "REBOUND_LOG_RULES_ALL_RANKS", value: "true" });
    const peer = container(goodputJobYaml({ ...base, name: "g-peer", mode: "peer" }));
    expect(peer.container?.command).toContain("--inprocess-restart");
    expect(peer.container?.command).toContain("--early-worker-restart");
    expect(inplace.container?.command).not.toContain("--early-worker-restart");
    expect(peer.container?.args).toContain("--peer-recovery");
    expect(peer.container?.env).toContainEqual({ name: "INPROCESS_RESTART", value: "1" });
  });

  it("is a valid HyperPodPyTorchJob", () => {
    for (const mode of ["full", "inplace", "peer"] as const) {
      const result = parseJobYaml(goodputJobYaml({ ...base, name: `g-${mode}`, mode }));
      expect(result.ok, JSON.stringify(result)).toBe(true);
    }
  });
});
