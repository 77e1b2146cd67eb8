import { runIsolated } from "./lib/isolated";

/**
 * `npm run bench:abuse`: the hardening benchmark of issue 16 (bench/abuse/main.ts lists its parts), run
 * isolated from the terminal's signals like the other benchmarks.
 */
runIsolated(new URL("./abuse/main.ts", import.meta.url));
