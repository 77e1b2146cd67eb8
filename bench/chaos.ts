import { runIsolated } from "./lib/isolated";

/**
 * `npm run bench:chaos [-- --minutes 10 …]`: the lifecycle soak (bench/chaos/main.ts says what it does and
 * measures), run isolated from the terminal's signals so its clean-up always finishes.
 */
runIsolated(new URL("./chaos/main.ts", import.meta.url));
