import { createEnv } from "@t3-oss/env-core";
import { z } from "zod";
import { describeEnvIssues, InvalidEnvError, portSchema, postgresUrlSchema } from "@/lib/env-schema";

/** The operator's own environment (it never reads the console's env.ts). */
export const operatorEnv = createEnv({
  server: {
    DATABASE_URL: postgresUrlSchema,
    OPERATOR_PORT: portSchema.default(8081),
    OPERATOR_HOST: z.string().min(1).default("127.0.0.1"),
    /**
     * A second port serving only /metrics and /healthz (on a cluster, so a NetworkPolicy can let Prometheus
     * and the kubelet reach those and nothing else); unset: they are on OPERATOR_PORT only.
     */
    OPERATOR_METRICS_PORT: portSchema.optional(),
    REBOUND_CLUSTER: z.enum(["local", "kubernetes"]).default("local"),
    REBOUND_DATA_DIR: z.string().min(1).default(".data"),
    REBOUND_LOCAL_NODES: z.coerce.number().int().min(1).max(4096).default(4),
    REBOUND_LOCAL_GPUS_PER_NODE: z.coerce.number().int().min(1).max(64).default(8),
    REBOUND_LOCAL_NODE_REBOOT_SECONDS: z.coerce.number().min(0).default(20),
    REBOUND_AGENT_POLL_MS: z.coerce.number().int().min(20).max(60_000).default(100),
    REBOUND_AGENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(3000),
    /** "0"/"false": agents are polled, none watched (server/operator/presence); default: our agents push. */
    REBOUND_AGENT_PUSH: z
      .enum(["0", "1", "true", "false"])
      .default("1")
      .transform((value) => value === "1" || value === "true"),
    /** The heartbeat asked of pushing agents and how long one may be silent before it is a fault. */
    REBOUND_AGENT_HEARTBEAT_MS: z.coerce.number().int().min(20).max(10_000).default(250),
    /** Unset: 2 s on the local back end (every agent shares this host's cores), 700 ms on Kubernetes. */
    REBOUND_AGENT_SILENCE_MS: z.coerce.number().int().min(100).max(60_000).optional(),
    /**
     * After an agent starts workers it gets the unreachable timeout instead of the silence threshold for this
     * long; unset: 10 s on the local back end (every pod shares this host's cores), none on Kubernetes.
     */
    REBOUND_AGENT_SETTLE_MS: z.coerce.number().int().min(0).max(600_000).optional(),
    /**
     * kubernetes: a file holding the operator's agent key (a mounted Secret, the same for every replica):
     * each pod's agent then asks for its credential (server/cluster/agent-credential.ts). Unset: pods get
     * none, and only the agents' NetworkPolicy keeps other pods off their port. The local back end keeps
     * its key in REBOUND_DATA_DIR.
     */
    REBOUND_AGENT_KEY_FILE: z.string().min(1).optional(),
    REBOUND_WORKERS: z.coerce.number().int().min(1).max(64).default(4),
    /** kubernetes: a kubeconfig file; unset = KUBECONFIG's default rules, or in-cluster credentials. */
    REBOUND_KUBECONFIG: z.string().min(1).optional(),
    REBOUND_LEADER_ELECTION: z
      .enum(["true", "false"])
      .default("false")
      .transform((value) => value === "true"),
    /** Where the Lease lives; default: POD_NAMESPACE (the Deployment's own), else rebound-system. */
    REBOUND_LEASE_NAMESPACE: z.string().min(1).optional(),
    POD_NAMESPACE: z.string().min(1).optional(),
    REBOUND_LEASE_NAME: z.string().min(1).default("rebound-operator"),
    REBOUND_LEASE_DURATION_SECONDS: z.coerce.number().int().min(1).max(600).default(15),
    /**
     * A Prometheus that scrapes the DCGM exporter: set, the kubernetes back end reads its GPU metrics into
     * the node-signal table's metric rows (server/metrics/node-metrics.ts) every
     * REBOUND_NODE_METRICS_INTERVAL_MS. Unset: no metric signals.
     */
    PROMETHEUS_URL: z.url().optional(),
    REBOUND_NODE_METRICS_INTERVAL_MS: z.coerce.number().int().min(50).max(600_000).default(250),
    /** The leader-election identity (the Deployment sets it from the pod name). */
    POD_NAME: z.string().min(1).optional(),
  },
  runtimeEnv: process.env,
  emptyStringAsUndefined: true,
  onValidationError: (issues) => {
    throw new InvalidEnvError(describeEnvIssues(issues, process.env));
  },
});

export type OperatorEnv = typeof operatorEnv;
