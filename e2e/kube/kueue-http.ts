import { readFileSync } from "node:fs";
import { request } from "node:https";

/** Where and how to reach the test apiserver without a Kubernetes client (e2e/ does not import one). */
export type KubeTarget = { server: string; adminToken: string; caFile: string };

export type KubeResponse = { status: number; text: string; json: unknown };

/** One HTTPS call to the apiserver as rebound-admin; resolves with any status (callers check it). */
export function kubeRequest(
  target: KubeTarget,
  req: { method: string; path: string; body?: unknown },
): Promise<KubeResponse> {
  const url = new URL(req.path, target.server);
  const payload = req.body === undefined ? undefined : JSON.stringify(req.body);
  return new Promise((resolve, reject) => {
    const call = request(
      url,
      {
        method: req.method,
        ca: readFileSync(target.caFile),
        headers: {
          authorization: `Bearer ${target.adminToken}`,
          accept: "application/json",
          ...(payload ? { "content-type": "application/json" } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json: unknown = null;
          try {
            json = JSON.parse(text);
          } catch {
            json = null;
          }
          resolve({ status: res.statusCode ?? 0, text, json });
        });
      },
    );
    call.on("error", reject);
    call.end(payload);
  });
}
