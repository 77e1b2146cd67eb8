import { createLifecycle, type Lifecycle } from "../k8s/environment";
import { runBodyAbuse } from "./bodies";
import { ABUSE_USAGE, type AbuseConfig, type AbusePart, parseAbuseArgs } from "./config";
import { runRuleAbuse } from "./rules";
import { runShadowAbuse } from "./shadow";
import { runSignInAbuse } from "./signin";

/**
 * `npm run bench:abuse` (issue 16, "What it must show"): each part attacks the stack as the issue did and
 * returns its figures; all are printed together as one `BENCH abuse <json>` line, keyed by part. A part is
 * one entry in PARTS (named in config.ts, where `--part` picks some): the console's body limit (bodies.ts),
 * the cost of the worst rule set the validator accepts, in the agent and the console's logs view
 * (rules.ts), sign-in throttling an attacker at one address cannot turn against a user at another
 * (signin.ts, issue 34), and the worst shadow rule set's cost to the operator (shadow.ts, issue 34).
 */
type PartContext = { life: Lifecycle; log: (line: string) => void; config: AbuseConfig };
type Part = (context: PartContext) => Promise<Record<string, number>>;

const PARTS: Readonly<Record<AbusePart, Part>> = {
  bodies: ({ life, log, config }) =>
    runBodyAbuse({ life, log, bodies: config.bodies, bodyMb: config.bodyMb }),
  rules: ({ log, config }) => runRuleAbuse({ log, seconds: config.seconds }),
  signin: ({ life, log, config }) =>
    runSignInAbuse({ life, log, attempts: config.attempts, signIns: config.signIns }),
  shadow: ({ life, log, config }) => runShadowAbuse({ life, log, crashes: config.crashes }),
};

const began = Date.now();
const log = (line: string) =>
  process.stderr.write(`[bench:abuse +${((Date.now() - began) / 1000).toFixed(1)}s] ${line}\n`);

async function main(life: Lifecycle, config: AbuseConfig): Promise<void> {
  const figures: Record<string, Record<string, number>> = {};
  for (const name of config.parts) {
    log(`${name}…`);
    const partLife = createLifecycle(log);
    life.defer(`${name}: clean-up`, () => partLife.close());
    try {
      figures[name] = await PARTS[name]({ life: partLife, log, config });
    } finally {
      await partLife.close();
    }
  }
  console.log(
    `BENCH abuse ${JSON.stringify({ ...figures, run_s: Math.round((Date.now() - began) / 1000) })}`,
  );
}

const life = createLifecycle(log);
process.on("disconnect", () => {
  log("interrupted: stopping every process and removing the temp dirs");
  void life.close().finally(() => process.exit(130));
});

// bench/abuse.ts answers --help and bad arguments before starting this process; run directly, the same.
const parsed = parseAbuseArgs(process.argv.slice(2));
if (parsed.help) {
  process.stdout.write(ABUSE_USAGE);
  process.exit(0);
}
main(life, parsed.config).then(
  () => process.exit(0),
  (error: unknown) => {
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    void life.close().finally(() => process.exit(1));
  },
);
