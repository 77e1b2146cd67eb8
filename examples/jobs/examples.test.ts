import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { HyperPodPyTorchJob } from "@/server/domain/job-spec/job-spec.schema";
import { parseJobYaml } from "@/server/domain/job-spec/parse-job";
import { compilePattern } from "@/server/domain/log-rules/pattern";

const EXAMPLES = {
  demo: new URL("./demo-job.yaml", import.meta.url),
  small: new URL("./small-job.yaml", import.meta.url),
  invalid: new URL("./invalid-job.yaml", import.meta.url),
  pytorch: new URL("../pytorch/job.yaml", import.meta.url),
};

function read(file: URL): string {
  return readFileSync(file, "utf8");
}

function parseValid(file: URL): HyperPodPyTorchJob {
  const result = parseJobYaml(read(file));
  if (!result.ok) throw new Error(`${file.pathname} should parse: ${JSON.stringify(result.errors, null, 2)}`);
  return result.job;
}

function agentArgv(job: HyperPodPyTorchJob): string[] {
  const container = job.spec.replicaSpecs[0]?.template.spec.containers[0];
  const command = container?.command;
  return Array.isArray(command) ? command.map(String) : [];
}

/** The first capturing group of a rule's logPattern on `line`, or null when the pattern does not match. */
function capture(job: HyperPodPyTorchJob, rule: string, line: string): string | undefined | null {
  const found = job.spec.runPolicy.logMonitoringConfiguration?.find((candidate) => candidate.name === rule);
  if (found === undefined) throw new Error(`no rule ${rule}`);
  const compiled = compilePattern(found.logPattern);
  if (!compiled.ok) throw new Error(compiled.reason);
  const match = compiled.pattern.match(line);
  return match === null ? null : match.groups[0];
}

describe("example jobs parse with the project's parser", () => {
  it.each(["demo", "small", "pytorch"] as const)("%s is valid, without warnings", (name) => {
    expect(parseValid(EXAMPLES[name]).kind).toBe("HyperPodPyTorchJob");
    const result = parseJobYaml(readFileSync(EXAMPLES[name], "utf8"));
    expect(result.ok && result.warnings).toEqual([]);
  });

  it("demo-job.yaml has the documented shape", () => {
    const job = parseValid(EXAMPLES.demo);
    expect(job.metadata).toMatchObject({
      name: "demo-llm",
      namespace: "hyperpod-ns-llm-research",
      labels: {
        "kueue.x-k8s.io/queue-name": "hyperpod-ns-llm-research-localqueue",
        "kueue.x-k8s.io/priority-class": "training-priority",
      },
    });
    expect(job.spec.nprocPerNode).toBe("4");
    expect(job.spec.replicaSpecs).toHaveLength(1);
    expect(job.spec.replicaSpecs[0]).toMatchObject({ name: "workers", replicas: 2, spares: 1 });
    expect(agentArgv(job).join(" ")).toBe(
      "npx rebound-agent --nproc-per-node 4 --server-port 8080 --log-dir /tmp/hyperpod " +
        "--log-rules-all-ranks --tee 3 examples/trainer/dist/demo-trainer.mjs --steps 0 --startup-ms 1500",
    );
    expect(job.spec.runPolicy).toMatchObject({
      jobMaxRetryCount: 50,
      cleanPodPolicy: "All",
      restartPolicy: {
        numRestartBeforeFullJobRestart: 3,
        evalPeriodSeconds: 1800,
        maxFullJobRestarts: 2,
        maxNumRepeatOffendersToAvoid: 1,
      },
    });
    expect(job.spec.runPolicy.logMonitoringConfiguration?.map((rule) => rule.name)).toEqual([
      "JobStart",
      "JobHang",
      "LossNaN",
      "LowThroughput",
    ]);
  });

  it("small-job.yaml runs 2 nodes x 4 ranks for 200 steps", () => {
    const job = parseValid(EXAMPLES.small);
    expect(job.spec.nprocPerNode).toBe("4");
    expect(job.spec.replicaSpecs[0]?.replicas).toBe(2);
    expect(agentArgv(job).slice(-2)).toEqual(["--steps", "200"]);
  });

  it("pytorch/job.yaml runs train.py under the agent with 8 ranks per node", () => {
    const argv = agentArgv(parseValid(EXAMPLES.pytorch));
    expect(argv.slice(0, 4)).toEqual(["npx", "rebound-agent", "--nproc-per-node", "8"]);
    expect(argv).toContain("examples/pytorch/train.py");
  });
});

describe("the demo job's log rules match the trainer's output", () => {
  const job = parseValid(EXAMPLES.demo);
  const step = "step=120 loss=2.3456 throughput=1523.4 samples/s rank=3";

  it("JobStart and JobHang", () => {
    expect(capture(job, "JobStart", "training started")).toBeUndefined();
    expect(capture(job, "JobStart", step)).toBeNull();
    expect(capture(job, "JobHang", step)).toBe("120");
    expect(capture(job, "JobHang", "training started")).toBeNull();
  });

  it("LossNaN fires only on a non-finite loss", () => {
    expect(capture(job, "LossNaN", step)).toBeNull();
    expect(capture(job, "LossNaN", "step=7 loss=nan throughput=1.0 samples/s rank=0")).toBe("nan");
    expect(capture(job, "LossNaN", "step=7 loss=inf throughput=1.0 samples/s rank=0")).toBe("inf");
  });

  it("LowThroughput captures the throughput value", () => {
    expect(capture(job, "LowThroughput", step)).toBe("1523.4");
    expect(capture(job, "LowThroughput", "training finished")).toBeNull();
  });
});

describe("invalid-job.yaml", () => {
  it("is rejected with the four expected errors, each on the line that holds the mistake", () => {
    const text = read(EXAMPLES.invalid);
    const result = parseJobYaml(text);
    expect(result.ok).toBe(false);
    const errors = result.ok ? [] : result.errors;
    const rules = "spec.runPolicy.logMonitoringConfiguration";
    expect(errors.map((error) => error.path).sort()).toEqual(
      [
        "spec.runPolicy.jobMaxRetryCount",
        "spec.runPolicy.restartPolicy.evalPeriodSeconds",
        `${rules}[0].logPattern`,
        `${rules}[1].operator`,
      ].sort(),
    );
    const lines = text.split("\n");
    const lineOf = (path: string) => {
      const line = errors.find((error) => error.path === path)?.line;
      expect(line, `${path} has a line number`).toBeTypeOf("number");
      return lines[(line ?? 0) - 1]?.trim();
    };
    expect(lineOf("spec.runPolicy.jobMaxRetryCount")).toBe("jobMaxRetryCount: -3");
    // A missing field is reported where its parent object starts.
    expect(lineOf("spec.runPolicy.restartPolicy.evalPeriodSeconds")).toBe("restartPolicy:");
    expect(lineOf(`${rules}[0].logPattern`)).toBe("logPattern: '.*step=(?=\\d+).*'");
    expect(lineOf(`${rules}[1].operator`)).toBe("operator: gte");
    const messages = errors.map((error) => error.message).join("\n");
    expect(messages).toMatch(/lookahead/);
    expect(messages).toContain('missing required field "evalPeriodSeconds"');
  });

  it("says at the top that it is meant to be rejected", () => {
    expect(read(EXAMPLES.invalid).split("\n")[0]).toMatch(/^# .*meant to be REJECTED/i);
  });
});
