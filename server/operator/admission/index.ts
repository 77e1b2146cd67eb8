import type { ClusterBackend } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import type { Logger } from "@/server/log";
import { createLocalAdmission } from "./local";
import type { AdmissionGate } from "./types";

export type { AdmissionGate, AdmissionVerdict } from "./types";

/**
 * The admission gate for the back end the operator drives: on the local back end Rebound's own admission
 * (local.ts); on Kubernetes, Kueue's (kueue.ts, createKueueGate) once it is wired in; until then none
 * (every job runs as HyperPod runs it without task governance).
 */
export async function createAdmissionGate(opts: {
  kind: "local" | "kubernetes";
  backend: ClusterBackend;
  db: Db;
  log: Logger;
}): Promise<AdmissionGate | null> {
  if (opts.kind === "local")
    return createLocalAdmission({
      db: opts.db,
      backend: opts.backend,
      log: opts.log.child({ component: "admission" }),
    });
  return null;
}
