import path from "node:path";
import { readOperatorToken } from "@/server/cluster/local-token";

/**
 * The bearer token the CLI sends to the operator: --token, else REBOUND_OPERATOR_TOKEN, else on Kubernetes
 * (REBOUND_CLUSTER=kubernetes or --kubeconfig) the current kubeconfig user's token, else the local back
 * end's <data dir>/operator-token. Null when there is none (the operator then answers 401, saying why).
 */
export async function operatorToken(opts: {
  flag: string | undefined;
  kubeconfig: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}): Promise<string | null> {
  if (opts.flag) return opts.flag;
  if (opts.env.REBOUND_OPERATOR_TOKEN) return opts.env.REBOUND_OPERATOR_TOKEN;
  if (opts.kubeconfig || opts.env.REBOUND_CLUSTER === "kubernetes") {
    const { loadKubeConfig } = await import("@/server/cluster/kubernetes/config");
    const { currentUserToken } = await import("@/server/cluster/kubernetes/access-review");
    return currentUserToken(loadKubeConfig(opts.kubeconfig ?? opts.env.REBOUND_KUBECONFIG));
  }
  return readOperatorToken(path.resolve(opts.cwd, opts.env.REBOUND_DATA_DIR ?? ".data"));
}
