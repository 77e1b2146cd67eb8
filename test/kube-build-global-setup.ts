import { buildKubeTestCluster } from "@/e2e/kube/cluster";

/**
 * The `kubernetes` project's extra set-up, before the Postgres one (test/integration-global-setup.ts): builds
 * the Kubernetes test cluster (e2e/kube: kube-apiserver, etcd and KWOK from Go modules, so Go >= 1.26 is
 * needed). A no-op when built from the current sources; the first build takes minutes, so it happens here,
 * outside any test timeout.
 */
export async function setup() {
  await buildKubeTestCluster({ log: (line) => console.log(`[kube] ${line}`) });
}
