import { runIsolated } from "./lib/isolated";

/**
 * `npm run bench:tv [-- --nodes 256 --viewers 200 --tab-minutes 60]`: TV viewers on one console process
 * (bench/tv/main.ts says what it measures), run isolated so its clean-up always finishes.
 */
runIsolated(new URL("./tv/main.ts", import.meta.url));
