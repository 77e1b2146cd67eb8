import { runIsolated } from "./lib/isolated";

/**
 * `npm run bench:console [-- --nodes 256 --watch-s 30]`: the job page of a 2,048-rank job in Chromium
 * (bench/console/main.ts says what it measures), run isolated so its clean-up always finishes.
 */
runIsolated(new URL("./console/main.ts", import.meta.url));
