import { describe, expect, it } from "vitest";
import { parseJobYaml } from "@/server/domain/job-spec/parse-job";
import { findExecutable, localAgentCommand, localPodEnv } from "./agent-command";

const base = { agentBin: "/repo/bin/rebound-agent.mjs", port: 41000, logDir: "/data/pods/p0" };

describe("localAgentCommand", () => {
  it("runs npx rebound-agent as this node with our port, host and log dir, keeping the other flags", () => {
    const result = localAgentCommand({
      ...base,
      argv: [
        "npx",
        "rebound-agent",
        "--nproc-per-node",
        "4",
        "--server-port",
        "8080",
        "--log-dir=/tmp/x",
        "train.ts",
        "--steps",
        "10",
      ],
    });
    expect(result).toEqual({
      ok: true,
      command: {
        command: process.execPath,
        args: [
          "/repo/bin/rebound-agent.mjs",
          "--server-host",
          "127.0.0.1",
          "--server-port",
          "41000",
          "--log-dir",
          "/data/pods/p0",
          "--nproc-per-node",
          "4",
          "train.ts",
          "--steps",
          "10",
        ],
      },
    });
  });

  it("runs our agent for hyperpodrun where hyperpodrun is not installed", () => {
    const result = localAgentCommand({
      ...base,
      argv: ["hyperpodrun", "--nnodes=2", "train.py"],
      findHyperpodrun: () => null,
    });
    expect(result.ok && result.command.command).toBe(process.execPath);
    expect(result.ok && result.command.args.slice(-2)).toEqual(["--nnodes=2", "train.py"]);
  });

  it("runs the real hyperpodrun unchanged where it is installed: only port, host, log dir and its config dir are ours", () => {
    const asked: string[] = [];
    const result = localAgentCommand({
      ...base,
      argv: [
        "sh",
        "-c",
        "hyperpodrun",
        "--rdzv-conf=a=1",
        "--nproc-per-node",
        "2",
        "--server-port=8080",
        "t.py",
        "--lr",
        "1",
      ],
      findHyperpodrun: (token) => {
        asked.push(token);
        return "/venv/bin/hyperpodrun";
      },
    });
    expect(asked).toEqual(["hyperpodrun"]);
    expect(result).toEqual({
      ok: true,
      command: {
        command: "/venv/bin/hyperpodrun",
        args: [
          "--server-host",
          "127.0.0.1",
          "--server-port",
          "41000",
          "--log-dir",
          "/data/pods/p0",
          "--rdzv-conf",
          "a=1,resource_config_dir=/data/pods/p0/hyperpod-config",
          "--nproc-per-node",
          "2",
          "t.py",
          "--lr",
          "1",
        ],
      },
    });
  });

  it("finds an executable by path or on a search path", () => {
    expect(findExecutable("sh", "/nonexistent:/bin:/usr/bin")).toMatch(/\/sh$/);
    expect(findExecutable("/bin/sh", undefined)).toBe("/bin/sh");
    expect(findExecutable("no-such-binary-here", "/bin:/usr/bin")).toBeNull();
    expect(findExecutable("/etc/passwd", undefined)).toBeNull();
  });

  it("refuses a container that does not start the agent, saying what it got", () => {
    const result = localAgentCommand({ ...base, argv: ["python3", "train.py"] });
    expect(result).toEqual({
      ok: false,
      reason: expect.stringContaining("got: python3 train.py"),
    });
  });
});

describe("localPodEnv", () => {
  const parsed = parseJobYaml(`apiVersion: sagemaker.amazonaws.com/v1
kind: HyperPodPyTorchJob
metadata:
  name: demo
spec:
  replicaSpecs:
    - name: pods
      replicas: 2
      template: { spec: { containers: [{ name: main, command: [hyperpodrun, train.py] }] } }
`);
  if (!parsed.ok) throw new Error("fixture does not parse");
  const job = parsed.job;

  it("gives the pod NNODES and PET_NPROC_PER_NODE, as HyperPod's operator does, over the host's own", () => {
    const host = { PATH: "/bin", NNODES: "64", PET_NPROC_PER_NODE: "8" };
    const env = localPodEnv({ host, job, containers: [], extra: {} });
    // nprocPerNode absent: the CRD's default, "auto".
    expect(env).toEqual({ PATH: "/bin", NNODES: "2", PET_NPROC_PER_NODE: "auto", REBOUND_WORKER_NICE: "0" });
  });

  it("lets the container's env and the back end's own variables win", () => {
    const env = localPodEnv({
      host: {},
      job,
      containers: [
        {
          env: [
            { name: "NNODES", value: "5" },
            { name: "PET_NPROC_PER_NODE", value: "3" },
            { name: "A", value: "container" },
          ],
        },
      ],
      extra: { A: "backend" },
    });
    expect(env).toEqual({ NNODES: "5", PET_NPROC_PER_NODE: "3", A: "backend", REBOUND_WORKER_NICE: "0" });
  });

  it("takes only the allow-listed part of the host's environment, whoever hands it the whole", () => {
    const env = localPodEnv({
      host: {
        PATH: "/bin",
        DATABASE_URL: "postgres://u:secret@h/db",
        REBOUND_X: "secret",
        NODE_OPTIONS: "-r x",
      },
      job,
      containers: [{ env: [{ name: "REBOUND_LOG_RULES_ALL_RANKS", value: "true" }] }],
      extra: {},
    });
    expect(env).toEqual({
      PATH: "/bin",
      NNODES: "2",
      PET_NPROC_PER_NODE: "auto",
      REBOUND_LOG_RULES_ALL_RANKS: "true",
      REBOUND_WORKER_NICE: "0",
    });
  });
});
