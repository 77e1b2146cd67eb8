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
