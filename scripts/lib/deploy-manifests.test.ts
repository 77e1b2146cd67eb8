import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { memoryLimitMiFor, OPERATOR_HEAP_FLAG, OPERATOR_HEAP_MB } from "@/bench/k8s/operator-sizing";
import { LABEL_JOB } from "@/server/cluster/kubernetes/objects";
import { OPERATOR_API_ACCESS } from "@/server/domain/access/operator-api";
import { CONSOLE_HEAP_FLAG } from "./console-heap";

/** Static checks of deploy/: every manifest parses, kustomizations resolve, RBAC stays least-privilege. */

const DEPLOY = path.resolve(import.meta.dirname, "../../deploy");

type Manifest = {
  kind?: string;
  metadata?: { name?: string; namespace?: string };
  [key: string]: unknown;
};
type Rule = { apiGroups?: string[]; resources?: string[]; verbs?: string[] };
type Kustomization = { resources?: string[] };
type Container = { name: string; securityContext?: Record<string, unknown>; resources?: { limits?: object } };

/** Outside deploy/chart/, whose templates are Helm's (deploy/chart/chart.k8s-test.ts lints and renders them). */
const yamlFiles = readdirSync(DEPLOY, { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".yaml") && !file.startsWith(`chart${path.sep}`))
  .sort();

function load(file: string): Manifest[] {
  return parseAllDocuments(readFileSync(file, "utf8")).map((doc) => {
    if (doc.errors.length > 0)
      throw new Error(`${file}: ${doc.errors.map((error) => error.message).join("; ")}`);
    return doc.toJS() as Manifest;
  });
}

/** The manifests a kustomization directory renders (resources only; patches are not applied). */
function render(dir: string): Manifest[] {
  const { resources = [] } = load(path.join(dir, "kustomization.yaml"))[0] as Kustomization;
  return resources.flatMap((entry) => {
    const target = path.resolve(dir, entry);
    return statSync(target).isDirectory() ? render(target) : load(target);
  });
}

const rolesIn = (manifests: Manifest[], kind: string, name: string) =>
  manifests.filter((m) => m.kind === kind && m.metadata?.name === name).flatMap((m) => m.rules as Rule[]);

const grants = (rules: Rule[], resource: string, verb: string) =>
  rules.some((rule) => rule.resources?.includes(resource) && rule.verbs?.includes(verb));

/** Whether the rules grant `verb` on group/resource (with its subresource, as RBAC names it). */
const grantsIn = (rules: Rule[], want: { group: string; resource: string; verb: string }) =>
  rules.some(
    (rule) =>
      rule.apiGroups?.includes(want.group) &&
      rule.resources?.includes(want.resource) &&
      rule.verbs?.includes(want.verb),
  );

const full = render(DEPLOY);
const consoleOnly = render(path.join(DEPLOY, "console-only"));

describe("deploy/", () => {
  it.each(yamlFiles)("%s parses as YAML", (file) => {
    expect(load(path.join(DEPLOY, file)).length).toBeGreaterThan(0);
  });

  it.each(yamlFiles.filter((file) => path.basename(file) === "kustomization.yaml"))(
    "%s lists resources that exist, files only from its own folder",
    (file) => {
      const dir = path.dirname(path.join(DEPLOY, file));
      const { resources = [] } = load(path.join(DEPLOY, file))[0] as Kustomization;
      for (const entry of resources) {
        const target = path.resolve(dir, entry);
        expect(existsSync(target), `${file}: ${entry} does not exist`).toBe(true);
        if (statSync(target).isDirectory()) {
          expect(existsSync(path.join(target, "kustomization.yaml")), `${entry} has no kustomization`).toBe(
            true,
          );
        } else {
          // kustomize's default load restrictor refuses files outside the kustomization's root.
          expect(path.relative(dir, target).startsWith(".."), `${file}: ${entry} is outside its folder`).toBe(
            false,
          );
        }
      }
    },
  );

  it("installs every manifest from the top-level kustomization (agents/ goes in each team's namespace, kueue/ into Kueue's, prometheus/ is Prometheus's configuration, not objects)", () => {
    const rendered = full.length;
    const all = yamlFiles.filter(
      (file) =>
        path.basename(file) !== "kustomization.yaml" &&
        !file.startsWith(`agents${path.sep}`) &&
        !file.startsWith(`kueue${path.sep}`) &&
        !file.startsWith(`prometheus${path.sep}`) &&
        !file.startsWith(`grafana${path.sep}`), // Grafana's provisioning (docs/dashboards.md), not objects
    );
    expect(rendered).toBe(all.reduce((count, file) => count + load(path.join(DEPLOY, file)).length, 0));
  });

  it("puts every namespaced object in rebound-system", () => {
    const clusterScoped = ["Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding"];
    for (const manifest of full.filter((m) => !clusterScoped.includes(m.kind ?? ""))) {
      expect(manifest.metadata?.namespace, `${manifest.kind}/${manifest.metadata?.name}`).toBe(
        "rebound-system",
      );
    }
  });

  it("console-only mode has no CRD, no operator and no operator RBAC", () => {
    const kinds = consoleOnly.map((m) => `${m.kind}/${m.metadata?.name}`);
    expect(kinds).not.toContain("CustomResourceDefinition/hyperpodpytorchjobs.sagemaker.amazonaws.com");
    expect(kinds.filter((kind) => kind.includes("rebound-operator"))).toEqual([]);
    expect(kinds).toContain("Deployment/rebound-console");
    expect(kinds).toContain("Namespace/rebound-system");
  });
});

describe("RBAC", () => {
  const rules = full
    .filter((m) => m.kind === "ClusterRole" || m.kind === "Role")
    .flatMap((m) => m.rules as Rule[]);
  const operator = rolesIn(full, "ClusterRole", "rebound-operator");
  const consoleRules = rolesIn(full, "ClusterRole", "rebound-console");

  it("never grants wildcards", () => {
    for (const rule of rules) {
      expect([...(rule.verbs ?? []), ...(rule.resources ?? []), ...(rule.apiGroups ?? [])]).not.toContain(
        "*",
      );
    }
  });

  it("lets the console read, and act on jobs only", () => {
    for (const verb of ["create", "delete", "patch", "update", "deletecollection"]) {
      expect(grants(consoleRules, "pods", verb), `console must not ${verb} pods`).toBe(false);
    }
    expect(grants(consoleRules, "hyperpodpytorchjobs", "create")).toBe(true);
    expect(grants(consoleRules, "workloads", "list")).toBe(true);
    expect(consoleRules.some((rule) => rule.resources?.includes("secrets"))).toBe(false);
  });

  it("gives the operator jobs, pods and events cluster-wide, but leases only in rebound-system", () => {
    expect(grants(operator, "hyperpodpytorchjobs/status", "patch")).toBe(true);
    expect(grants(operator, "pods", "create")).toBe(true);
    expect(grants(operator, "hyperpodpytorchjobs", "create")).toBe(false);
    expect(operator.some((rule) => rule.resources?.includes("leases"))).toBe(false);
    const [leaseRole] = full.filter((m) => m.kind === "Role");
    expect(leaseRole?.metadata?.namespace).toBe("rebound-system");
    expect(grants(leaseRole?.rules as Rule[], "leases", "update")).toBe(true);
  });

  it("lets the operator review its API's callers: TokenReview and SubjectAccessReview, create only", () => {
    expect(
      grantsIn(operator, { group: "authentication.k8s.io", resource: "tokenreviews", verb: "create" }),
    ).toBe(true);
    expect(
      grantsIn(operator, { group: "authorization.k8s.io", resource: "subjectaccessreviews", verb: "create" }),
    ).toBe(true);
    const reviews = operator.filter((rule) => rule.resources?.some((name) => name.endsWith("reviews")));
    expect(reviews.flatMap((rule) => rule.verbs)).toEqual(["create", "create"]);
  });

  it("gives the console every right the operator's API asks of it (operator-api.ts)", () => {
    const needed = Object.entries(OPERATOR_API_ACCESS).flatMap(([route, access]) =>
      access.public ? [] : access.grants.map((grant) => ({ route, grant })),
    );
    expect(needed.length).toBeGreaterThan(5);
    for (const { route, grant } of needed) {
      const resource = [grant.resource, "subresource" in grant ? grant.subresource : undefined]
        .filter(Boolean)
        .join("/");
      expect(
        grantsIn(consoleRules, { group: grant.group, resource, verb: grant.verb }),
        `${route}: console lacks ${grant.verb} ${resource}`,
      ).toBe(true);
    }
  });

  it("binds each role to its own service account", () => {
    const bindings = full.filter((m) => m.kind === "ClusterRoleBinding" || m.kind === "RoleBinding");
    for (const binding of bindings) {
      const { roleRef, subjects } = binding as { roleRef: { name: string }; subjects: { name: string }[] };
      // rebound-operator-leader-election and rebound-operator-kueue are the operator's too.
      expect(subjects.map((subject) => subject.name)).toEqual([
        roleRef.name.replace(/-(leader-election|kueue)$/, ""),
      ]);
    }
  });
});

describe("workloads", () => {
  const deployments = full.filter((m) => m.kind === "Deployment");

  it.each(["rebound-operator", "rebound-console"])(
    "%s runs non-root, read-only, without capabilities",
    (name) => {
      const deployment = deployments.find((m) => m.metadata?.name === name) as {
        spec: {
          template: {
            spec: { securityContext: object; containers: Container[]; initContainers?: Container[] };
          };
        };
      };
      const pod = deployment.spec.template.spec;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
      for (const container of [...pod.containers, ...(pod.initContainers ?? [])]) {
        expect(container.securityContext).toMatchObject({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ["ALL"] },
        });
        expect(container.resources?.limits, `${name}/${container.name} limits`).toBeDefined();
      }
    },
  );
});

describe("the operator's network", () => {
  type Port = { name: string; containerPort: number };
  type PolicyPeer = { podSelector?: { matchLabels?: Record<string, string> }; namespaceSelector?: object };
  type Policy = {
    spec: {
      podSelector: { matchLabels: Record<string, string> };
      policyTypes: string[];
      ingress: Array<{ from: PolicyPeer[]; ports: Array<{ port: string | number }> }>;
    };
  };
  const policy = full.find((m) => m.kind === "NetworkPolicy" && m.metadata?.name === "rebound-operator") as
    | (Manifest & Policy)
    | undefined;
  const operatorPod = (
    full.find((m) => m.kind === "Deployment" && m.metadata?.name === "rebound-operator") as unknown as {
      spec: {
        template: {
          metadata: { labels: Record<string, string> };
          spec: {
            containers: Array<{
              ports: Port[];
              env: Array<{ name: string; value?: string }>;
              readinessProbe: { httpGet: { port: string } };
              livenessProbe: { httpGet: { port: string } };
            }>;
          };
        };
      };
    }
  ).spec.template;
  const [container] = operatorPod.spec.containers;
  const portOf = (name: string) => container?.ports.find((port) => port.name === name)?.containerPort;
  const envOf = (name: string) => container?.env.find((entry) => entry.name === name)?.value;

  it("serves the API and /metrics on two ports, as the env and the Service say", () => {
    expect(portOf("api")).toBe(Number(envOf("OPERATOR_PORT")));
    expect(portOf("metrics")).toBe(Number(envOf("OPERATOR_METRICS_PORT")));
    expect(portOf("api")).not.toBe(portOf("metrics"));
    const service = full.find(
      (m) => m.kind === "Service" && m.metadata?.name === "rebound-operator",
    ) as Manifest & {
      metadata: { annotations: Record<string, string> };
    };
    expect(Number(service.metadata.annotations["prometheus.io/port"])).toBe(portOf("metrics"));
    expect(container?.readinessProbe.httpGet.port).toBe("metrics");
    expect(container?.livenessProbe.httpGet.port).toBe("metrics");
  });

  it("lets only the console's pods reach the API port, and Prometheus only the metrics port", () => {
    expect(policy, "deploy/operator/network-policy.yaml").toBeDefined();
    if (!policy) return;
    expect(policy.metadata?.namespace).toBe("rebound-system");
    expect(policy.spec.podSelector.matchLabels).toEqual({
      "app.kubernetes.io/name": operatorPod.metadata.labels["app.kubernetes.io/name"],
    });
    expect(policy.spec.policyTypes).toEqual(["Ingress"]);
    const toPort = (port: string) =>
      policy.spec.ingress.filter((rule) => rule.ports.some((p) => p.port === port));
    const [api, ...moreApi] = toPort("api");
    expect(moreApi).toEqual([]);
    expect(api?.from).toEqual([
      { podSelector: { matchLabels: { "app.kubernetes.io/name": "rebound-console" } } },
    ]);
    const [metrics, ...moreMetrics] = toPort("metrics");
    expect(moreMetrics).toEqual([]);
    expect(
      metrics?.from.every(
        (peer) => peer.podSelector?.matchLabels?.["app.kubernetes.io/name"] === "prometheus",
      ),
    ).toBe(true);
    expect(policy.spec.ingress.flatMap((rule) => rule.ports.map((port) => port.port)).sort()).toEqual([
      "api",
      "metrics",
    ]);
  });

  it("reaches the operator's API port from the console", () => {
    const consoleDeployment = JSON.stringify(
      full.find((m) => m.metadata?.name === "rebound-console" && m.kind === "Deployment"),
    );
    expect(consoleDeployment).toContain(`rebound-operator.rebound-system.svc:${portOf("api")}`);
  });

  it("caps the console's heap as npm start does", () => {
    const consoleDeployment = full.find(
      (m) => m.metadata?.name === "rebound-console" && m.kind === "Deployment",
    ) as unknown as {
      spec: {
        template: {
          spec: { containers: Array<{ name: string; env: Array<{ name: string; value?: string }> }> };
        };
      };
    };
    const console = consoleDeployment.spec.template.spec.containers.find((c) => c.name === "console");
    expect(console?.env.find((entry) => entry.name === "NODE_OPTIONS")?.value).toBe(CONSOLE_HEAP_FLAG);
  });

  it("caps the operator's heap as bench/k8s/operator-sizing.ts derives it, under a limit that holds its RSS", () => {
    expect(envOf("NODE_OPTIONS")).toBe(OPERATOR_HEAP_FLAG);
    const { resources } = container as unknown as { resources: { limits: { memory: string } } };
    const limitMi = Number(/^(\d+)Mi$/.exec(resources.limits.memory)?.[1]);
    expect(limitMi).toBeGreaterThanOrEqual(memoryLimitMiFor(OPERATOR_HEAP_MB));
  });
});

describe("the agents' network (deploy/agents/, applied in each team's namespace)", () => {
  type PortRule = { port?: number | string; endPort?: number; protocol: string };
  type Peer = {
    podSelector?: { matchLabels?: Record<string, string> };
    namespaceSelector?: { matchLabels?: Record<string, string> };
  };
  type Policy = Manifest & {
    spec: {
      podSelector: { matchExpressions?: Array<{ key: string; operator: string }> };
      policyTypes: string[];
      ingress: Array<{ from?: Peer[]; ports: PortRule[] }>;
    };
  };
  const AGENT_PORT = 8080;
  const agents = render(path.join(DEPLOY, "agents"));
  const policy = agents.find((m) => m.kind === "NetworkPolicy") as Policy | undefined;
  const operatorLabels = full.find(
    (m) => m.kind === "Deployment" && m.metadata?.name === "rebound-operator",
  ) as unknown as {
    metadata: { namespace: string };
    spec: { template: { metadata: { labels: Record<string, string> } } };
  };
  const covers = (rule: PortRule, port: number) =>
    rule.port === undefined || (Number(rule.port) <= port && port <= (rule.endPort ?? Number(rule.port)));

  it("is one NetworkPolicy with no namespace of its own (kubectl apply -n places it)", () => {
    expect(agents.map((m) => m.kind)).toEqual(["NetworkPolicy"]);
    expect(policy?.metadata?.namespace).toBeUndefined();
    expect(policy?.spec.policyTypes).toEqual(["Ingress"]);
  });

  it("selects every job pod by the label the operator puts on them", () => {
    expect(policy?.spec.podSelector).toEqual({ matchExpressions: [{ key: LABEL_JOB, operator: "Exists" }] });
  });

  it("lets only the operator's pods and Prometheus reach the agent port", () => {
    const toAgent = (policy?.spec.ingress ?? []).filter((rule) =>
      rule.ports.some((port) => port.protocol === "TCP" && covers(port, AGENT_PORT)),
    );
    expect(toAgent).toHaveLength(1);
    const [rule] = toAgent;
    expect(rule?.from, "a rule open to every source must not cover the agent port").toBeDefined();
    expect(rule?.from).toEqual([
      {
        namespaceSelector: {
          matchLabels: { "kubernetes.io/metadata.name": operatorLabels.metadata.namespace },
        },
        podSelector: {
          matchLabels: {
            "app.kubernetes.io/name": operatorLabels.spec.template.metadata.labels["app.kubernetes.io/name"],
          },
        },
      },
      { namespaceSelector: {}, podSelector: { matchLabels: { "app.kubernetes.io/name": "prometheus" } } },
    ]);
    expect(rule?.ports).toEqual([{ port: AGENT_PORT, protocol: "TCP" }]);
  });

  it("leaves every other port open (rendezvous, NCCL), so jobs run as before", () => {
    const open = (policy?.spec.ingress ?? []).filter((rule) => rule.from === undefined);
    const openPorts = open.flatMap((rule) => rule.ports);
    for (const port of [22, 29500, 8079, 8081, 65535]) {
      expect(
        openPorts.some((rule) => rule.protocol === "TCP" && covers(rule, port)),
        `TCP ${port}`,
      ).toBe(true);
    }
    expect(openPorts.some((rule) => rule.protocol === "TCP" && covers(rule, AGENT_PORT))).toBe(false);
    expect(openPorts.filter((rule) => rule.protocol !== "TCP")).toEqual([
      { protocol: "UDP" },
      { protocol: "SCTP" },
    ]);
  });

  it("matches where Prometheus scrapes the agents (examples/prometheus/kubernetes.yml)", () => {
    const scrape = readFileSync(path.resolve(DEPLOY, "../examples/prometheus/kubernetes.yml"), "utf8");
    expect(scrape).toContain(`replacement: $1:${AGENT_PORT}`);
    expect(scrape).toContain(`__meta_kubernetes_pod_label_${LABEL_JOB}`);
  });
});
