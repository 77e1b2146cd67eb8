import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { type HelmResult, runHelm } from "@/e2e/kube/helm";
import { CHART_DIR } from "./render";
import { ALL_ON, sets } from "./testing";

/**
 * The chart as `helm` (built from its Go module, e2e/kube/helm.ts) sees it: `helm lint --strict`, `helm
 * template` with the defaults and with every optional part on, values.schema.json refusing bad values by
 * name. install.k8s-test.ts installs it into the test apiserver.
 */

type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  // biome-ignore lint/suspicious/noExplicitAny: rendered Kubernetes objects of every kind
  spec?: any;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
};

let home: string;
const helm = (args: string[]): Promise<HelmResult> => runHelm(args, { home });

async function template(values: string[], extra: string[] = []): Promise<Manifest[]> {
  const result = await helm([
    "template",
    "rebound",
    CHART_DIR,
    "-n",
    "rebound-system",
    ...sets(values),
    ...extra,
  ]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return parseAllDocuments(result.stdout)
    .map((doc) => doc.toJS() as Manifest | null)
    .filter((doc): doc is Manifest => doc !== null);
}

const names = (manifests: Manifest[]) =>
  manifests.map(
    (m) => `${m.kind}/${m.metadata.namespace ? `${m.metadata.namespace}/` : ""}${m.metadata.name}`,
  );

beforeAll(async () => {
  home = await mkdtemp(path.join(tmpdir(), "rebound-helm-"));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

describe("helm lint --strict", () => {
  it("passes with the defaults", async () => {
    const result = await helm(["lint", "--strict", CHART_DIR]);
    expect(result.stdout + result.stderr).toContain("1 chart(s) linted, 0 chart(s) failed");
    expect(result.code).toBe(0);
  });

  it("passes with every optional part on", async () => {
    const result = await helm(["lint", "--strict", CHART_DIR, ...sets(ALL_ON)]);
    expect(result.stdout + result.stderr).toContain("0 chart(s) failed");
    expect(result.code).toBe(0);
  });
});

describe("helm template", () => {
  it("renders the CRD, RBAC, operator, console and the operator's NetworkPolicy by default, nothing optional", async () => {
    const all = names(await template([], ["--skip-tests"]));
    expect(all).toEqual(
      expect.arrayContaining([
        "CustomResourceDefinition/hyperpodpytorchjobs.sagemaker.amazonaws.com",
        "ServiceAccount/rebound-system/rebound-operator",
        "ClusterRole/rebound-operator",
        "ClusterRole/rebound-operator-kueue",
        "Role/rebound-system/rebound-operator-leader-election",
        "ClusterRole/rebound-console",
        "Deployment/rebound-system/rebound-operator",
        "Service/rebound-system/rebound-operator",
        "NetworkPolicy/rebound-system/rebound-operator",
        "Deployment/rebound-system/rebound-console",
        "Service/rebound-system/rebound-console",
      ]),
    );
    for (const kind of ["Namespace", "Ingress", "ServiceMonitor", "Secret", "ConfigMap"]) {
      expect(
        all.filter((name) => name.startsWith(`${kind}/`)),
        kind,
      ).toEqual([]);
    }
    expect(all.filter((name) => name.includes("rebound-agents"))).toEqual([]);
  });

  it("renders each optional part when asked: Ingress, ServiceMonitor, Kueue, scrape config, dashboards, Secret, agents' policies", async () => {
    const manifests = await template(ALL_ON, ["--skip-tests"]);
    const all = names(manifests);
    expect(all).toEqual(
      expect.arrayContaining([
        "Ingress/rebound-system/rebound-console",
        "ServiceMonitor/rebound-system/rebound-operator",
        "ConfigMap/kueue-system/kueue-manager-config",
        "ConfigMap/rebound-system/rebound-prometheus",
        "ConfigMap/rebound-system/rebound-grafana-dashboards",
        "ConfigMap/rebound-system/rebound-config",
        "Secret/rebound-system/rebound-db",
        "NetworkPolicy/hyperpod-ns-a/rebound-agents",
        "NetworkPolicy/hyperpod-ns-b/rebound-agents",
      ]),
    );
    const ingress = manifests.find((m) => m.kind === "Ingress");
    expect(ingress?.spec.rules[0].host).toBe("rebound.example.com");
    expect(ingress?.spec.tls).toEqual([{ hosts: ["rebound.example.com"], secretName: "rebound-tls" }]);
    const kueue = manifests.find((m) => m.metadata.name === "kueue-manager-config");
    expect(kueue?.data?.["controller_manager_config.yaml"]).toContain(
      "HyperPodPyTorchJob.v1.sagemaker.amazonaws.com",
    );
    const scrape = manifests.find((m) => m.metadata.name === "rebound-prometheus");
    expect(Object.keys(scrape?.data ?? {}).sort()).toEqual([
      "alerting-rules.yaml",
      "prometheus.yml",
      "recording-rules.yaml",
    ]);
    const dashboards = manifests.find((m) => m.metadata.name === "rebound-grafana-dashboards");
    const labels = (dashboards?.metadata as { labels?: Record<string, string> } | undefined)?.labels;
    expect(labels?.grafana_dashboard).toBe("1");
    expect(Object.keys(dashboards?.data ?? {}).sort()).toEqual([
      "rebound-operator.json",
      "rebound-recovery.json",
      "rebound-training.json",
    ]);
    for (const json of Object.values(dashboards?.data ?? {}))
      expect(JSON.parse(String(json)).schemaVersion).toBeGreaterThanOrEqual(39);
    expect(manifests.find((m) => m.kind === "Secret")?.stringData?.url).toContain("postgres.example");
  });

  it("in console-only mode (operator.enabled=false) renders no CRD, no operator and no operator RBAC", async () => {
    const all = names(await template(["operator.enabled=false"]));
    expect(
      all.filter((name) => name.includes("rebound-operator") || name.startsWith("CustomResource")),
    ).toEqual([]);
    expect(all).toContain("Deployment/rebound-system/rebound-console");
  });

  it("runs every container non-root, read-only, with ALL capabilities dropped and limits set", async () => {
    const manifests = await template(ALL_ON);
    const pods = [
      ...manifests.filter((m) => m.kind === "Deployment").map((m) => m.spec.template.spec),
      ...manifests.filter((m) => m.kind === "Pod").map((m) => m.spec),
    ];
    expect(pods).toHaveLength(3);
    for (const pod of pods) {
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true });
      for (const container of [...(pod.initContainers ?? []), ...pod.containers]) {
        expect(container.securityContext, container.name).toMatchObject({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ["ALL"] },
        });
        expect(container.resources?.limits?.memory, container.name).toBeDefined();
      }
    }
  });

  it("has a Helm test pod that checks the operator's and the console's health endpoints", async () => {
    const result = await helm([
      "template",
      "rebound",
      CHART_DIR,
      "-n",
      "team-x",
      "--show-only",
      "templates/tests/health.yaml",
    ]);
    expect(result.code).toBe(0);
    const [policy, pod] = parseAllDocuments(result.stdout).map((doc) => doc.toJS() as Manifest);
    expect(pod?.metadata.annotations?.["helm.sh/hook"]).toBe("test");
    const urls = JSON.parse(pod?.spec.containers[0].env[0].value) as string[];
    expect(urls).toEqual([
      "http://rebound-operator.team-x.svc:8082/healthz",
      "http://rebound-console.team-x.svc:80/api/healthz",
    ]);
    // Only while the test runs: the operator's own NetworkPolicy admits Prometheus alone on 8082.
    expect(policy?.metadata.annotations?.["helm.sh/hook"]).toBe("test");
  });
});

describe("single sign-on values (console.oidc, docs/sso.md)", () => {
  const SSO = [
    "database.url=postgresql://rebound:secret@postgres.example:5432/rebound",
    "console.publicUrl=https://rebound.example.com",
    "console.localPasswords=off",
    "console.oidc.enabled=true",
    "console.oidc.issuer=https://idp.example.com/realms/ml",
    "console.oidc.clientId=rebound",
  ];
  const consoleEnv = (manifests: Manifest[]) => {
    const deployment = manifests.find(
      (m) => m.kind === "Deployment" && m.metadata.name === "rebound-console",
    );
    const env: Array<{ name: string; value?: string; valueFrom?: unknown }> =
      deployment?.spec.template.spec.containers[0].env ?? [];
    return new Map(env.map((entry) => [entry.name, entry.value ?? entry.valueFrom]));
  };

  it("passes the provider, the public URL and the password switch to the console, the secret from a Secret", async () => {
    const manifests = await template([...SSO, "console.oidc.clientSecret=s3cret"], ["--skip-tests"]);
    const env = consoleEnv(manifests);
    expect(env.get("REBOUND_OIDC_ISSUER")).toBe("https://idp.example.com/realms/ml");
    expect(env.get("REBOUND_OIDC_CLIENT_ID")).toBe("rebound");
    expect(env.get("REBOUND_PUBLIC_URL")).toBe("https://rebound.example.com");
    expect(env.get("REBOUND_LOCAL_PASSWORDS")).toBe("off");
    expect(env.get("REBOUND_OIDC_CLIENT_SECRET")).toEqual({
      secretKeyRef: { name: "rebound-oidc", key: "client-secret" },
    });
    const secret = manifests.find((m) => m.kind === "Secret" && m.metadata.name === "rebound-oidc");
    expect(secret?.stringData).toEqual({ "client-secret": "s3cret" });
  });

  it("reads an existing Secret instead, and makes none", async () => {
    const manifests = await template([...SSO, "console.oidc.existingSecret=corp-oidc"], ["--skip-tests"]);
    expect(consoleEnv(manifests).get("REBOUND_OIDC_CLIENT_SECRET")).toEqual({
      secretKeyRef: { name: "corp-oidc", key: "client-secret" },
    });
    expect(names(manifests)).not.toContain("Secret/rebound-system/rebound-oidc");
  });

  it("is off by default: no provider in the console's environment, passwords on", async () => {
    const env = consoleEnv(await template(["database.url=postgresql://r:s@db:5432/r"], ["--skip-tests"]));
    expect([...env.keys()].filter((name) => name.startsWith("REBOUND_OIDC_"))).toEqual([]);
    expect(env.get("REBOUND_LOCAL_PASSWORDS")).toBe("on");
  });

  it("refuses single sign-on without what it needs, naming the value", async () => {
    const refusal = async (values: string[]) =>
      (await helm(["template", "rebound", CHART_DIR, ...sets(values)])).stderr;
    expect(await refusal(SSO)).toMatch(
      /console\.oidc\.clientSecret: set it \(or console\.oidc\.existingSecret\)/,
    );
    expect(await refusal(SSO.filter((v) => !v.startsWith("console.publicUrl")))).toMatch(
      /console\.publicUrl:/,
    );
    expect(
      await refusal([
        ...SSO.filter((v) => !v.startsWith("console.oidc.issuer")),
        "console.oidc.clientSecret=x",
      ]),
    ).toMatch(/console\.oidc\.issuer:/);
    expect(await refusal([...SSO, "console.localPasswords=no"])).toMatch(/\/console\/localPasswords/);
  });
});

describe("values.schema.json", () => {
  const refused = async (values: string[]) => {
    const result = await helm(["template", "rebound", CHART_DIR, ...sets(values)]);
    expect(result.code).not.toBe(0);
    return result.stderr;
  };

  it("refuses a wrong type, naming the field", async () => {
    expect(await refused(["operator.replicas=two"])).toMatch(/\/operator\/replicas.*want integer/s);
  });

  it("refuses an unknown key, naming it", async () => {
    expect(await refused(["console.ingres.enabled=true"])).toMatch(/\/console.*'ingres' not allowed/s);
  });

  it("refuses a bad values file, naming the field", async () => {
    const file = path.join(home, "bad-values.yaml");
    await writeFile(file, "prometheus:\n  url: prometheus:9090\n");
    const result = await helm(["template", "rebound", CHART_DIR, "-f", file]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/\/prometheus\/url/);
  });

  it("refuses a database URL that is not PostgreSQL's, naming the field", async () => {
    expect(await refused(["database.url=mysql://db"])).toMatch(/\/database\/url/);
  });
});
