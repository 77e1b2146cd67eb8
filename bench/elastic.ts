import { runIsolated } from "./lib/isolated";

/**
 * `npm run bench:elastic [-- --cycles 2 …]`: an elastic job grows into the GPUs another team's job frees and
 * shrinks when it comes back (bench/elastic/main.ts says what it measures), run isolated from the
 * terminal's signals so its clean-up always finishes.
 */
runIsolated(new URL("./elastic/main.ts", import.meta.url));
