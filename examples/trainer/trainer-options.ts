/**
 * Flags and torch environment of the demo trainer. `--flag value` and `--flag=value` both work.
 *   --steps N              steps to run, then print "training finished" and exit 0 (default 0 = forever)
 *   --step-ms MS           time per step (default 200)
 *   --startup-ms MS        start-up before the first step, as a real trainer loads its model and checkpoint
 *                          (default 0)
 *   --checkpoint-dir DIR   default $REBOUND_CHECKPOINT_DIR or /tmp/rebound-demo-ckpt
 *   --checkpoint-every N   rank 0 saves every N steps (default 10)
 *   --control-file PATH    fault-injection control file (default $REBOUND_FAULT_FILE)
 *   --dump-env DIR         write this process's environment to DIR/env-<RANK>.json at start
 *   --peer-recovery        under an in-process-restart agent (INPROCESS_RESTART=1), a new process takes its
 *                          state from a healthy data-parallel peer instead of the checkpoint (inprocess.ts)
 */

export type TrainerOptions = {
  steps: number;
  stepMs: number;
  startupMs: number;
  checkpointDir: string;
  checkpointEvery: number;
  controlFile: string | null;
  dumpEnvDir: string | null;
  peerRecovery: boolean;
};

export type TorchEnv = {
  rank: number;
  localRank: number;
  worldSize: number;
  restartCount: number;
  /** The raw DEMO_FAULT value, if any. */
  demoFault: string | null;
};

export type Env = Readonly<Record<string, string | undefined>>;

const INT = /^[0-9]{1,9}$/;

function intFlag(name: string, text: string, min: number): number {
  if (!INT.test(text) || Number(text) < min)
    throw new Error(`--${name}: expected an integer >= ${min}, got "${text}"`);
  return Number(text);
}

type Setter = (options: TrainerOptions, value: string) => void;

const FLAGS: Record<string, Setter> = {
  steps: (o, v) => {
    o.steps = intFlag("steps", v, 0);
  },
  "step-ms": (o, v) => {
    o.stepMs = intFlag("step-ms", v, 1);
  },
  "startup-ms": (o, v) => {
    o.startupMs = intFlag("startup-ms", v, 0);
  },
  "checkpoint-dir": (o, v) => {
    o.checkpointDir = v;
  },
  "checkpoint-every": (o, v) => {
    o.checkpointEvery = intFlag("checkpoint-every", v, 1);
  },
  "control-file": (o, v) => {
    o.controlFile = v;
  },
  "dump-env": (o, v) => {
    o.dumpEnvDir = v;
  },
};

/** Flags without a value. */
const SWITCHES: Record<string, (options: TrainerOptions) => void> = {
  "peer-recovery": (o) => {
    o.peerRecovery = true;
  },
};

function switchAt(arg: string): ((options: TrainerOptions) => void) | undefined {
  const name = arg.replace(/^--/, "");
  return arg.startsWith("--") && Object.hasOwn(SWITCHES, name) ? SWITCHES[name] : undefined;
}

/** Reads the flag at argv[index]: its setter, its value, and how many arguments it took. */
function readFlag(argv: readonly string[], index: number): { setter: Setter; value: string; used: number } {
  const arg = argv[index] ?? "";
  const toggle = switchAt(arg);
  if (toggle !== undefined) return { setter: (o) => toggle(o), value: "", used: 1 };
  const eq = arg.indexOf("=");
  const name = (eq > 0 ? arg.slice(0, eq) : arg).replace(/^--/, "");
  const setter = arg.startsWith("--") && Object.hasOwn(FLAGS, name) ? FLAGS[name] : undefined;
  if (setter === undefined) throw new Error(`unknown argument "${arg}"`);
  const value = eq > 0 ? arg.slice(eq + 1) : argv[index + 1];
  if (value === undefined) throw new Error(`--${name} expects a value`);
  return { setter, value, used: eq > 0 ? 1 : 2 };
}

/** Throws an Error with a one-line message for a bad flag. */
export function parseTrainerArgs(argv: readonly string[], env: Env): TrainerOptions {
  const options: TrainerOptions = {
    steps: 0,
    stepMs: 200,
    startupMs: 0,
    checkpointDir: env.REBOUND_CHECKPOINT_DIR || "/tmp/rebound-demo-ckpt",
    checkpointEvery: 10,
    controlFile: env.REBOUND_FAULT_FILE || null,
    dumpEnvDir: null,
    peerRecovery: false,
  };
  for (let index = 0; index < argv.length; ) {
    const { setter, value, used } = readFlag(argv, index);
    setter(options, value);
    index += used;
  }
  return options;
}

const envInt = (env: Env, name: string, fallback: number): number => {
  const text = env[name];
  return text !== undefined && INT.test(text) ? Number(text) : fallback;
};

export function readTorchEnv(env: Env): TorchEnv {
  return {
    rank: envInt(env, "RANK", 0),
    localRank: envInt(env, "LOCAL_RANK", 0),
    worldSize: envInt(env, "WORLD_SIZE", 1),
    restartCount: envInt(env, "JOB_RESTART_COUNT", 0),
    demoFault: env.DEMO_FAULT || null,
  };
}
