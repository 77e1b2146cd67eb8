import { parseArgs } from "node:util";
import { integerReader, stringOptions } from "../lib/flags";

/**
 * The benchmark's knobs (defaults are issue 14's set-up):
 *   --minutes 10                  faults for this long, per mode (one every --interval-s, mid-slot)
 *   --seconds 0                   faults for this many seconds instead, when above 0 (a quick look, a test)
 *   --interval-s 30               one fault per slot: crash, hang, NaN, node in turn
 *   --modes full,inplace,peer     which recoveries, one after the other, in this order
 *   --nodes 8 --ranks-per-node 8  the job: 8 virtual nodes × 8 ranks = 64 ranks (+1 spare node)
 *   --step-ms 100                 the trainer's step time
 *   --checkpoint-every 50         the trainer's checkpoint interval, in steps (5 s at 100 ms a step)
 *   --hang-seconds 2              the JobHang rule's window (expectedRecurringFrequencyInSeconds): 20 steps
 *                                 of 100 ms. Ten steps (1 s, the shortest a rule can say) is what a user would
 *                                 set; peer recovery holds it (no false hang in a 2-minute run once local
 *                                 workers stopped being half-lowered, see server/cluster/local/agent-command.ts),
 *                                 but a full or checkpoint restart starts 64 trainers at once on 2 shared
 *                                 cores, and the ranks up first then stop printing for over a second: at 1 s
 *                                 each such restart set off a false hang and another restart (the full mode
 *                                 never settled). One window for every mode keeps them comparable;
 *                                 `--modes peer --hang-seconds 1` gives peer recovery's 1 s figure.
 *   --poll-ms 100                 the operator's agent poll interval (its default)
 *   --agent-push 1                agents push their state to the operator (its default); 0: polled, as before
 *   --tail-ms 25                  how often the benchmark reads the pods' logs for step lines
 *   --keep-logs DIR               copy each mode's pod logs (agents' and ranks') to DIR/<job> before the job
 *                                 is deleted, to look at a recovery afterwards (default: not kept)
 */
export const MODES = ["full", "inplace", "peer"] as const;
export type Mode = (typeof MODES)[number];

export type GoodputConfig = {
  /** How long faults are injected, per mode: --seconds when given, else --minutes. */
  durationMs: number;
  intervalMs: number;
  modes: Mode[];
  nodes: number;
  ranksPerNode: number;
  stepMs: number;
  checkpointEvery: number;
  hangSeconds: number;
  pollMs: number;
  agentPush: boolean;
  tailMs: number;
  keepLogs: string | null;
};

const DEFAULTS = {
  minutes: "10",
  seconds: "0",
  "interval-s": "30",
  modes: MODES.join(","),
  nodes: "8",
  "ranks-per-node": "8",
  "step-ms": "100",
  "checkpoint-every": "50",
  "hang-seconds": "2",
  "poll-ms": "100",
  "agent-push": "1",
  "tail-ms": "25",
  "keep-logs": "",
} as const;

type Flag = keyof typeof DEFAULTS;

const isMode = (text: string): text is Mode => (MODES as readonly string[]).includes(text);

export function parseModes(text: string): Mode[] {
  const modes = text.split(",").map((part) => part.trim());
  const bad = modes.filter((mode) => !isMode(mode));
  if (bad.length > 0 || modes.length === 0)
    throw new Error(`--modes: expected a comma-separated list of ${MODES.join(", ")}, got ${text}`);
  return [...new Set(modes as Mode[])];
}

export function parseConfig(argv: string[]): GoodputConfig {
  const { values } = parseArgs({ args: argv, options: stringOptions<Flag>(DEFAULTS) });
  const int = integerReader<Flag>(DEFAULTS, values);
  return {
    durationMs: int("seconds", 0) > 0 ? int("seconds", 0) * 1000 : int("minutes", 1) * 60_000,
    intervalMs: int("interval-s", 5) * 1000,
    modes: parseModes(String(values.modes ?? DEFAULTS.modes)),
    nodes: int("nodes", 1),
    ranksPerNode: int("ranks-per-node", 1),
    stepMs: int("step-ms", 1),
    checkpointEvery: int("checkpoint-every", 1),
    hangSeconds: int("hang-seconds", 1),
    pollMs: int("poll-ms", 20),
    agentPush: int("agent-push", 0) !== 0,
    tailMs: int("tail-ms", 5),
    keepLogs: String(values["keep-logs"] ?? "") || null,
  };
}
