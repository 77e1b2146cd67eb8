import { chmod, mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * A tiny Python training worker for driving the real `hyperpodrun` on a CPU. It takes a control folder as
 * its one argument and:
 * - writes the torch/HyperPod variables it was started with to `env-<JOB_RESTART_COUNT>.json`;
 * - prints `step N loss 0.5` every 0.2 s, or nothing while `quiet` exists (a hang for log rules);
 * - exits with code 3 when `crash` appears (it removes the file first, so a restart runs on);
 * - on SIGUSR1 (a graceful stop) writes `sigusr1-<JOB_RESTART_COUNT>` and exits 0.
 */
export const HYPERPOD_WORKER_PY = `
import json, os, signal, sys, time

ctl = sys.argv[1]
restart = os.environ.get("JOB_RESTART_COUNT", "none")
KEYS = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "GROUP_RANK", "MASTER_ADDR", "MASTER_PORT", "JOB_RESTART_COUNT",
        "TORCHELASTIC_RESTART_COUNT", "NNODES", "HYPERPOD_SIGNAL_COORDINATION"]


def put(name, text):
    tmp = os.path.join(ctl, name + ".tmp")
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, os.path.join(ctl, name))


def graceful(signum, frame):
    put("sigusr1-" + restart, "")
    sys.exit(0)


signal.signal(signal.SIGUSR1, graceful)
put("env-" + restart + ".json", json.dumps({key: os.environ.get(key) for key in KEYS}))
step = 0
while True:
    if os.path.exists(os.path.join(ctl, "crash")):
        os.remove(os.path.join(ctl, "crash"))
        sys.exit(3)
    if not os.path.exists(os.path.join(ctl, "quiet")):
        print("step %d loss 0.5" % step, flush=True)
    step += 1
    time.sleep(0.2)
`;

/** A worker script in a folder the pods' user can read, with its control folder (writable by it). */
export type HyperPodWorkDir = { dir: string; ctl: string; script: string };

/**
 * Writes `script` (the worker above by default) to a new temporary folder, with a `ctl` control folder,
 * both reachable by the pods' user when the operator runs as root.
 */
export async function hyperpodWorkDir(prefix: string, script = HYPERPOD_WORKER_PY): Promise<HyperPodWorkDir> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  const ctl = path.join(dir, "ctl");
  await mkdir(ctl);
  await chmod(dir, 0o755);
  await chmod(ctl, 0o777);
  const file = path.join(dir, "train.py");
  await writeFile(file, script, { mode: 0o644 });
  return { dir, ctl, script: file };
}

/**
 * A HyperPodPyTorchJob whose container runs the unchanged `hyperpodrun` with the worker: `replicas` pods of
 * `nproc` ranks, `flags` added to hyperpodrun's, `spec`/`runPolicy` lines (YAML, indented as the keys they
 * sit beside) added as given.
 */
export function hyperpodrunJobYaml(input: {
  name: string;
  namespace: string;
  hyperpodrun: string;
  work: HyperPodWorkDir;
  replicas: number;
  nproc: number;
  flags?: string[];
  spec?: string;
  runPolicy?: string;
}): string {
  const { replicas, nproc, work } = input;
  const command = [
    input.hyperpodrun,
    `--nnodes=${replicas}`,
    `--nproc-per-node=${nproc}`,
    "--server-port=8080",
    ...(input.flags ?? []),
  ];
  return `apiVersion: sagemaker.amazonaws.com/v1
kind: HyperPodPyTorchJob
metadata:
  name: ${input.name}
  namespace: ${input.namespace}
spec:
${input.spec ?? ""}  replicaSpecs:
    - name: workers
      replicas: ${replicas}
      template:
        spec:
          containers:
            - name: trainer
              image: rebound/demo:latest
              command: ${JSON.stringify(command)}
              args: ${JSON.stringify([work.script, work.ctl])}
  runPolicy:
    jobMaxRetryCount: 3
${input.runPolicy ?? ""}`;
}
