import { runIsolated } from "./lib/isolated";

/**
 * `npm run bench:goodput [-- --minutes 10 --modes full,inplace,peer …]`: goodput as training progress under
 * a fault every 30 s, three recoveries compared (bench/goodput/main.ts says what it measures), run isolated
 * from the terminal's signals so its clean-up always finishes.
 */
runIsolated(new URL("./goodput/main.ts", import.meta.url));
