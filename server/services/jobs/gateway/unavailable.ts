import { type ClusterSource, SourceError } from "./types";

/** The console's source when it has no cluster to read: every read and action answers 503 and says why. */
export function createUnavailableSource(): ClusterSource {
  const fail = async (): Promise<never> => {
    throw new SourceError(503, "no cluster to read: set REBOUND_OPERATOR_URL, or REBOUND_CLUSTER=kubernetes");
  };
  return {
    mode: "local",
    jobs: fail,
    job: fail,
    nodes: fail,
    logs: fail,
    rankOutput: fail,
    act: fail,
    injectFault: fail,
    delete: fail,
    applyRunPolicy: fail,
    setShadowPolicy: fail,
    history: fail,
  };
}
