import "server-only";
import { readFileSync } from "node:fs";
import path from "node:path";
import { env } from "@/env";
import { readOperatorToken } from "@/server/cluster/local-token";

/**
 * The bearer token the console sends to the operator's API: REBOUND_OPERATOR_TOKEN when set; on
 * Kubernetes the console's service-account token (re-read, as the kubelet rotates it); on the local back
 * end the token the operator made in <REBOUND_DATA_DIR>/operator-token. Read again at most every 10 s
 * (at once while none was found).
 */
export const SERVICE_ACCOUNT_TOKEN_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/token";
const REREAD_MS = 10_000;

export type CredentialSource = {
  envToken: string | undefined;
  cluster: "local" | "kubernetes";
  dataDir: string;
  serviceAccountTokenFile: string;
};

function readToken(source: CredentialSource): string | undefined {
  if (source.envToken) return source.envToken;
  try {
    if (source.cluster === "kubernetes")
      return readFileSync(source.serviceAccountTokenFile, "utf8").trim() || undefined;
    return readOperatorToken(source.dataDir) ?? undefined;
  } catch {
    // No token to send: the operator answers 401 naming where its credential is expected.
    return undefined;
  }
}

export function createOperatorCredentials(
  source: CredentialSource,
  now: () => number = Date.now,
): () => string | undefined {
  let held: { token: string | undefined; at: number } | null = null;
  return () => {
    if (held?.token === undefined || now() - held.at >= REREAD_MS)
      held = { token: readToken(source), at: now() };
    return held.token;
  };
}

/** The console process's token for the operator (undefined: none found). */
export const operatorToken = createOperatorCredentials({
  envToken: env.REBOUND_OPERATOR_TOKEN,
  cluster: env.REBOUND_CLUSTER,
  dataDir: path.resolve(env.REBOUND_DATA_DIR),
  serviceAccountTokenFile: SERVICE_ACCOUNT_TOKEN_FILE,
});
