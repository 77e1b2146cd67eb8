import { parseArgs } from "node:util";
import { integerReader, stringOptions } from "../lib/flags";

/** The parts of `npm run bench:abuse`, in the order they run (main.ts maps each to its code). */
export const ABUSE_PARTS = ["bodies", "rules", "signin", "shadow"] as const;
export type AbusePart = (typeof ABUSE_PARTS)[number];

export type AbuseConfig = {
  parts: AbusePart[];
  /** rules: how long each latency measurement (agent /status, logs view) runs. */
  seconds: number;
  /** bodies: concurrent oversized bodies, and each one's size. */
  bodies: number;
  bodyMb: number;
  /** signin: the attacker's wrong passwords for the victim's account, and the victim's own sign-ins. */
  attempts: number;
  signIns: number;
  /** shadow: crashes of another job's rank in each phase (alone, beside the flood job, with its shadow). */
  crashes: number;
};

export const ABUSE_USAGE = `Usage: npm run bench:abuse [-- options]

Attacks a local stack as issues 16 and 34 did and prints each part's figures, then one
\`BENCH abuse <json>\` line keyed by part.

Options:
  --part NAME[,NAME...]  run only these parts: ${ABUSE_PARTS.join(", ")} (default: all)
  --seconds N            rules: each latency measurement's length in seconds (default 10)
  --bodies N             bodies: concurrent oversized request bodies (default 3)
  --body-mb N            bodies: each body's size in MB (default 200)
  --attempts N           signin: the attacker's wrong passwords for the victim's account (default 50)
  --sign-ins N           signin: the victim's sign-ins from its own address, during and after (default 20)
  --crashes N            shadow: another job's rank crashes in each of its three phases (default 20)
  -h, --help             print this and exit
`;

const DEFAULTS = {
  seconds: "10",
  bodies: "3",
  "body-mb": "200",
  attempts: "50",
  "sign-ins": "20",
  crashes: "20",
} as const;
type Flag = keyof typeof DEFAULTS;

function partsOf(value: string | undefined): AbusePart[] {
  if (value === undefined) return [...ABUSE_PARTS];
  const names = value.split(",").filter((name) => name !== "");
  const unknown = names.filter((name) => !(ABUSE_PARTS as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length > 0)
    throw new Error(`--part: expected one or more of ${ABUSE_PARTS.join(", ")}, got ${value}`);
  // In the bench's own order, each once.
  return ABUSE_PARTS.filter((part) => names.includes(part));
}

/** What the command line asks for: the usage, or a run; a bad argument throws an Error naming it. */
export function parseAbuseArgs(argv: string[]): { help: true } | { help: false; config: AbuseConfig } {
  const { values } = parse(argv);
  if (values.help === true) return { help: true };
  const int = integerReader<Flag>(DEFAULTS, values);
  return {
    help: false,
    config: {
      parts: partsOf(values.part),
      seconds: int("seconds", 1),
      bodies: int("bodies", 1),
      bodyMb: int("body-mb", 2),
      attempts: int("attempts", 1),
      signIns: int("sign-ins", 1),
      crashes: int("crashes", 1),
    },
  };
}

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        ...stringOptions<Flag>(DEFAULTS),
        part: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (error) {
    // parseArgs' first sentence names the argument ("Unknown option '--foo'"); the rest (Node 22 suggests
    // `--` for positionals) does not apply: this bench takes none.
    if (String((error as NodeJS.ErrnoException).code).startsWith("ERR_PARSE_ARGS_"))
      throw new Error((error as Error).message.split(". ")[0]);
    throw error;
  }
}
