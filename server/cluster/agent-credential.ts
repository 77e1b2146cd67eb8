import { createHmac, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { AGENT_CREDENTIAL_ENV } from "@/server/agent/env";

/**
 * The credential an agent of ours asks of every call but /healthz and /metrics (server/agent/server.ts):
 * one per pod, HMAC-SHA256 of the pod's namespace/name under a key of the operator's. Derived, not stored:
 * an operator that restarts reads its key again and knows every running pod's credential, with nothing
 * kept per pod. The pod gets it in its environment (AGENT_CREDENTIAL_ENV), never on its command line,
 * which `ps` shows to every user of the machine; the agent keeps it from its workers' environment.
 */
export { AGENT_CREDENTIAL_ENV };

export type AgentPodName = { namespace: string; name: string };
export type AgentCredentials = { credentialFor(pod: AgentPodName): string };

const KEY_BYTES = 32;

/** HMAC of "namespace/name": a pod of another namespace, or another name, has another credential. */
export function deriveAgentCredential(key: Buffer, pod: AgentPodName): string {
  return createHmac("sha256", key).update(`${pod.namespace}/${pod.name}`).digest("base64url");
}

/**
 * The operator's key in `file` (created, 0600, with 32 random bytes on first use; read again after a
 * restart). Only the operator's user reads it: a root operator runs pods as another user (pod-user.ts).
 */
export function loadAgentKey(file: string): Buffer {
  try {
    return keyFrom(readFileSync(file), file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  mkdirSync(path.dirname(file), { recursive: true });
  try {
    // "wx": two processes starting at once keep the first one's key.
    writeFileSync(file, randomBytes(KEY_BYTES), { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  return keyFrom(readFileSync(file), file);
}

function keyFrom(bytes: Buffer, file: string): Buffer {
  if (bytes.length < KEY_BYTES)
    throw new Error(`agent key ${file}: ${bytes.length} bytes, at least ${KEY_BYTES} expected`);
  return bytes;
}

export function agentCredentials(key: Buffer): AgentCredentials {
  return { credentialFor: (pod) => deriveAgentCredential(key, pod) };
}
