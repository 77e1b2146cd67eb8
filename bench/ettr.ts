import { runIsolated } from "./lib/isolated";

/**
 * `npm run bench:ettr [-- --pods 2048 --faults 5 --days 30 --seed 1]`: ETTR of a 16,384-rank job's long
 * run, the control plane measured and the run simulated (bench/ettr/main.ts says how), run isolated from the
 * terminal's signals so its clean-up always finishes.
 */
runIsolated(new URL("./ettr/main.ts", import.meta.url));
