import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";

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

const yamlFiles = readdirSync(DEPLOY, { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".yaml"))
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

  it("installs every manifest from the top-level kustomization", () => {
    const rendered = full.length;
    const all = yamlFiles.filter((file) => path.basename(file) !== "kustomization.yaml");
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

  it("binds each role to its own service account", () => {
    const bindings = full.filter((m) => m.kind === "ClusterRoleBinding" || m.kind === "RoleBinding");
    for (const binding of bindings) {
      const { roleRef, subjects } = binding as { roleRef: { name: string }; subjects: { name: string }[] };
      expect(subjects.map((subject) => subject.name)).toEqual([
        roleRef.name.replace(/-leader-election$/, ""),
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
