import type { V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { statusCode } from "../api-calls";
import { ANNOTATION_AGENT_URL } from "../objects";
import { type KubeEnv, startKubeEnv } from "./kube-env";
import { annotateAgentUrl } from "./kubelet";

/**
 * The kubelet stand-ins' announcement on a real kube-apiserver: an agent's URL lands on its own pod only.
 * A pod replaced under the same name while its agent was starting refuses the old pod's write (the patch
 * carries the old uid), and a pod that is gone ends the tries at once. An earlier version wrote by name
 * alone, so a replacement could be announced with the address of an agent that had been stopped.
 */
const NAMESPACE = "kubelet-announce";
let env: KubeEnv;

beforeAll(async () => {
  env = await startKubeEnv({ nodes: [], gpusPerNode: 0, namespaces: [NAMESPACE], crd: false });
}, 600_000);

afterAll(() => env?.stop(), 60_000);

const createPod = async (name: string): Promise<V1Pod> =>
  env.core.createNamespacedPod({
    namespace: NAMESPACE,
    body: { metadata: { name }, spec: { containers: [{ name: "main", image: "stand-in" }] } },
  });

const annotationOf = async (name: string) =>
  (await env.core.readNamespacedPod({ namespace: NAMESPACE, name })).metadata?.annotations?.[
    ANNOTATION_AGENT_URL
  ];

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => statusCode(error),
  );

it("writes the agent URL onto the pod it was started for", async () => {
  const pod = await createPod("own");
  await annotateAgentUrl(env.core, pod, "http://127.0.0.1:1001");
  expect(await annotationOf("own")).toBe("http://127.0.0.1:1001");
});

it("leaves a replacement of the same name alone, and gives up on a pod that is gone", async () => {
  const old = await createPod("replaced");
  await env.core.deleteNamespacedPod({ namespace: NAMESPACE, name: "replaced", gracePeriodSeconds: 0 });
  expect(await refusal(annotateAgentUrl(env.core, old, "http://127.0.0.1:1002"))).toBe(404);

  const replacement = await createPod("replaced");
  expect(replacement.metadata?.uid).not.toBe(old.metadata?.uid);
  const code = await refusal(annotateAgentUrl(env.core, old, "http://127.0.0.1:1002"));
  expect([409, 422]).toContain(code);
  expect(await annotationOf("replaced")).toBeUndefined();

  await annotateAgentUrl(env.core, replacement, "http://127.0.0.1:1003");
  expect(await annotationOf("replaced")).toBe("http://127.0.0.1:1003");
});
