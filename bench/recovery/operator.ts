/**
 * The operator under measurement: the shared local-operator harness with server/operator/main.ts's
 * defaults (agent poll as given, agent timeout 3 s, /stop timeout 10 s, 30 s pod start-up grace), started by
 * bench/lib/local-environment.ts.
 */
export type { BenchOperator } from "../lib/local-environment";
