import { ABUSE_USAGE, parseAbuseArgs } from "./abuse/config";
import { runIsolated } from "./lib/isolated";

/**
 * `npm run bench:abuse [-- --part rules --seconds 10]`: the hardening benchmark of issues 16 and 34
 * (bench/abuse/main.ts lists its parts), run isolated from the terminal's signals like the other
 * benchmarks. `--help` and a bad argument are answered here, before anything starts.
 */
try {
  if (parseAbuseArgs(process.argv.slice(2)).help) {
    process.stdout.write(ABUSE_USAGE);
    process.exit(0);
  }
} catch (error) {
  process.stderr.write(
    `bench:abuse: ${error instanceof Error ? error.message : String(error)} (see npm run bench:abuse -- --help)\n`,
  );
  process.exit(2);
}
runIsolated(new URL("./abuse/main.ts", import.meta.url));
