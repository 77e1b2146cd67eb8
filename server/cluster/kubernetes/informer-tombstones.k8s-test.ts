import type { V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createLogger } from "@/server/log";
import { createInformer, type Informer, type KubeObject } from "./informer";
import { type KubeEnv, startKubeEnv, waitUntil } from "./testing/kube-env";

/**
 * The pod cache's view of a pod deleted right after it was created, on a real kube-apiserver. The operator
 * puts the answer to its own create into the cache (its next reconcile must see the pod); when the watch
 * reported the pod's deletion first, that late answer must not bring the pod back. It did: a replacement
 * pod deleted within milliseconds of its creation (by KWOK in node-signals.k8s-test.ts) stayed in the cache
 * for good, and its restart waited on it in "stopping" forever. Nor does a late DELETED of an earlier pod of
 * the same name take its successor out of the cache.
 */
const NAMESPACE = "informer-tombstones";
let env: KubeEnv;
let informer: Informer<V1Pod & KubeObject>;
/** What the watch delivered: `TYPE uid`. */
const seen: string[] = [];

beforeAll(async () => {
  env = await startKubeEnv({ nodes: [], gpusPerNode: 0, namespaces: [NAMESPACE], crd: false });
  informer = createInformer<V1Pod & KubeObject>({
    name: "pods",
    kubeConfig: env.kubeConfig,
    log: createLogger({ service: "informer-tombstones-it" }),
    watchPath: `/api/v1/namespaces/${NAMESPACE}/pods`,
    list: () => env.core.listNamespacedPod({ namespace: NAMESPACE }) as never,
    onEvent: (type, pod) => seen.push(`${type} ${pod?.metadata?.uid}`),
  });
  await informer.start();
}, 600_000);

afterAll(async () => {
  informer?.stop();
  await env?.stop();
}, 60_000);

const createPod = async (name: string) =>
  (await env.core.createNamespacedPod({
    namespace: NAMESPACE,
    body: { metadata: { name }, spec: { containers: [{ name: "main", image: "stand-in" }] } },
  })) as V1Pod & KubeObject;

const deletePod = (name: string) =>
  env.core.deleteNamespacedPod({ namespace: NAMESPACE, name, gracePeriodSeconds: 0 });

const cachedUid = (name: string) => informer.get(`${NAMESPACE}/${name}`)?.metadata?.uid;

it("keeps a pod out once the watch said it was deleted, even when the create's answer comes after", async () => {
  const created = await createPod("short-lived");
  await waitUntil("the watch to see the pod", () => cachedUid("short-lived") === created.metadata?.uid);
  await deletePod("short-lived");
  await waitUntil("the watch to see it deleted", () => cachedUid("short-lived") === undefined);

  informer.upsert(created); // the create's answer, arriving late
  expect(cachedUid("short-lived")).toBeUndefined();
});

it("keeps the successor of a pod when the earlier pod's deletion is applied after it", async () => {
  const first = await createPod("renamed");
  await waitUntil("the watch to see the first pod", () => cachedUid("renamed") === first.metadata?.uid);
  await deletePod("renamed");
  const second = await createPod("renamed");
  informer.upsert(second); // the create's answer, before the watch's events of the first pod's deletion
  await waitUntil("the watch to deliver the first pod's deletion", () =>
    seen.includes(`DELETED ${first.metadata?.uid}`),
  );
  expect(cachedUid("renamed")).toBe(second.metadata?.uid);
  informer.remove(first); // a stale removal of the first pod by its owner
  expect(cachedUid("renamed")).toBe(second.metadata?.uid);
});
