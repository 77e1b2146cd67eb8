import { runIsolated } from "./lib/isolated";

/**
 * `npm run bench:governance [-- --jobs 10000 --teams 50 …]`: task governance on the local back end at
 * scale (bench/governance/main.ts says what it measures), run isolated from the terminal's signals so its
 * clean-up always finishes.
 */
runIsolated(new URL("./governance/main.ts", import.meta.url));
