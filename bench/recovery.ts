import { runIsolated } from "./lib/isolated";

/**
 * `npm run bench:recovery [-- --faults 20 …]`: the recovery benchmark (bench/recovery/main.ts says what it
 * measures), run isolated from the terminal's signals so its clean-up always finishes.
 */
runIsolated(new URL("./recovery/main.ts", import.meta.url));
