import { runIsolated } from "./lib/isolated";

/**
 * `npm run bench:k8s [-- --nodes 256 --gpus-per-node 8 --faults 5 --budget-s 600]`: the Kubernetes back
 * end at scale (bench/k8s/main.ts says what it measures), run isolated from the terminal's signals so its
 * clean-up always finishes.
 */
runIsolated(new URL("./k8s/main.ts", import.meta.url));
