import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { buildKubeTestCluster, type KubeTestCluster, startKubeTestCluster } from "@/e2e/kube/cluster";

/**
 * The Kubernetes test environment of e2e/kube, started with an audit log (every request but KWOK's and the
 * apiserver's own, at level Metadata) and static tokens for the operator and the stand-in agents, so the
 * operator's requests can be counted apart.
 */
export type BenchUser = { user: string; token: string };

export type AuditedCluster = KubeTestCluster & {
  auditLogPath: string;
  /** A kubeconfig file for one of the extra users, written into the data dir. */
  kubeconfigFor(user: BenchUser): Promise<string>;
};

/** Metadata for everything the operator, the agents and the bench do; nothing of KWOK's heartbeats. */
const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["ResponseStarted"]
rules:
  - level: None
    users: ["kwok-controller", "system:apiserver"]
  - level: None
    nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]
  - level: Metadata
`;

export async function startAuditedCluster(opts: {
  dataDir: string;
  users: BenchUser[];
  log: (line: string) => void;
}): Promise<AuditedCluster> {
  await buildKubeTestCluster({ log: opts.log });
  const policyPath = path.join(opts.dataDir, "audit-policy.yaml");
  const auditLogPath = path.join(opts.dataDir, "audit.log");
  await mkdir(opts.dataDir, { recursive: true });
  await writeFile(policyPath, AUDIT_POLICY);
  const cluster = await startKubeTestCluster({
    dataDir: opts.dataDir,
    log: opts.log,
    extraTokens: opts.users.map(({ user, token }) => ({ user, token, groups: ["system:masters"] })),
    apiserverArgs: [`--audit-policy-file=${policyPath}`, `--audit-log-path=${auditLogPath}`],
  });
  return {
    ...cluster,
    auditLogPath,
    async kubeconfigFor({ user, token }) {
      const file = path.join(opts.dataDir, `kubeconfig-${user}`);
      const yaml = kubeconfigYaml({ server: cluster.server, caFile: cluster.caFile, user, token });
      await writeFile(file, yaml, { mode: 0o600 });
      return file;
    },
  };
}

function kubeconfigYaml(input: { server: string; caFile: string; user: string; token: string }): string {
  return `apiVersion: v1
kind: Config
clusters:
  - name: rebound-bench
    cluster:
      server: ${input.server}
      certificate-authority: ${input.caFile}
users:
  - name: ${input.user}
    user:
      token: ${input.token}
contexts:
  - name: ${input.user}
    context:
      cluster: rebound-bench
      user: ${input.user}
current-context: ${input.user}
`;
}
