/**
 * The console's V8 old-space cap, as `npm start`, the benchmarks and deploy/console/deployment.yaml run it.
 *
 * Without a cap V8 sizes its heap from the machine's memory and collects lazily: under 200 TV viewers of a
 * 2,048-rank job (bench:tv) the console's live heap was 88 MB (a heap snapshot) while its RSS reached 488 MB,
 * 556 MB at peak, nearly all of it garbage not yet collected. With the cap at 192 MB the same run held 289 MB
 * RSS. 256 MB leaves the live heap room to triple (more viewers, more jobs) before the collector has to work
 * hard; the Deployment's 1 GiB memory limit stays well above it.
 */
export const CONSOLE_HEAP_MB = 256;

export const CONSOLE_HEAP_FLAG = `--max-old-space-size=${CONSOLE_HEAP_MB}`;

/** NODE_OPTIONS for the console: the caller's own options kept, the heap cap added unless one is set already. */
export function consoleNodeOptions(existing: string | undefined): string {
  const options = (existing ?? "").trim();
  if (/--max-old-space-size(=|\s)/.test(options)) return options;
  return options ? `${options} ${CONSOLE_HEAP_FLAG}` : CONSOLE_HEAP_FLAG;
}
