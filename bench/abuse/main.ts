import { createLifecycle, type Lifecycle } from "../k8s/environment";
import { runBodyAbuse } from "./bodies";
import { runRuleAbuse } from "./rules";

/**
 * `npm run bench:abuse` (issue 16, "What it must show"): each part attacks the stack as the issue did and
 * returns its figures; all are printed together as one `BENCH abuse <json>` line, keyed by part. A part is
 * one entry in PARTS: the console's body limit (bodies.ts) and the cost of the worst rule set the validator
 * accepts, in the agent and the console's logs view (rules.ts).
 */
type PartContext = { life: Lifecycle; log: (line: string) => void };
type Part = { name: string; run: (context: PartContext) => Promise<Record<string, number>> };

const PARTS: readonly Part[] = [
  { name: "bodies", run: (context) => runBodyAbuse(context) },
  { name: "rules", run: ({ log }) => runRuleAbuse({ log }) },
];

const began = Date.now();
const log = (line: string) =>
  process.stderr.write(`[bench:abuse +${((Date.now() - began) / 1000).toFixed(1)}s] ${line}\n`);

async function main(life: Lifecycle): Promise<void> {
  const figures: Record<string, Record<string, number>> = {};
  for (const part of PARTS) {
    log(`${part.name}…`);
    const partLife = createLifecycle(log);
    life.defer(`${part.name}: clean-up`, () => partLife.close());
    try {
      figures[part.name] = await part.run({ life: partLife, log });
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

main(life).then(
  () => process.exit(0),
  (error: unknown) => {
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    void life.close().finally(() => process.exit(1));
  },
);
