import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { buildHelm } from "@/e2e/kube/helm";
import { DEPLOY_DIR, GENERATED_HEADER, renderDeploy } from "./render";

/** deploy/ is the chart's output (render.ts): the committed files equal a fresh `helm template`. */

let rendered: Map<string, string>;

beforeAll(async () => {
  // Built once (go install, minutes the first time; the kubernetes project's global set-up builds it too).
  await buildHelm({ log: (line) => console.log(`[helm] ${line}`) });
  rendered = await renderDeploy();
}, 900_000);

/**
 * deploy/'s Kubernetes objects outside the chart (YAML documents with apiVersion and kind), but for the
 * hand-written kustomizations. Configuration files (Prometheus rules, Grafana provisioning) are not objects.
 */
const objectFiles = readdirSync(DEPLOY_DIR, { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".yaml") && !file.startsWith(`chart${path.sep}`))
  .filter((file) =>
    parseAllDocuments(readFileSync(path.join(DEPLOY_DIR, file), "utf8")).some((doc) => {
      const object = doc.toJS() as { apiVersion?: unknown; kind?: unknown } | null;
      return (
        typeof object?.apiVersion === "string" &&
        typeof object.kind === "string" &&
        object.kind !== "Kustomization"
      );
    }),
  )
  .map((file) => file.split(path.sep).join("/"))
  .sort();

/** Listed before the render, for it.each: what render.ts writes (its templates and copied files). */
const GENERATED = readdirSync(DEPLOY_DIR, { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".yaml") && !file.startsWith(`chart${path.sep}`))
  .filter((file) => readFileSync(path.join(DEPLOY_DIR, file), "utf8").startsWith(GENERATED_HEADER))
  .map((file) => file.split(path.sep).join("/"))
  .sort();

describe("deploy/ renders from deploy/chart (npm run generate:deploy)", () => {
  it("renders the CRD, RBAC, operator, console, both NetworkPolicies and the configuration files", () => {
    expect([...rendered.keys()]).toEqual(
      expect.arrayContaining([
        "crd/hyperpodpytorchjobs.sagemaker.amazonaws.com.yaml",
        "namespace/namespace.yaml",
        "rbac/operator/cluster-role.yaml",
        "rbac/console/cluster-role.yaml",
        "operator/deployment.yaml",
        "operator/network-policy.yaml",
        "console/deployment.yaml",
        "agents/network-policy.yaml",
        "prometheus/recording-rules.yaml",
        "kueue/controller_manager_config.yaml",
      ]),
    );
  });

  it("holds no Kubernetes object the chart does not render (one source of manifests)", () => {
    expect(objectFiles.filter((file) => !rendered.has(file))).toEqual([]);
  });

  it("marks exactly the rendered files as generated", () => {
    expect(GENERATED).toEqual([...rendered.keys()]);
  });

  it.each(GENERATED)("deploy/%s is the chart's render (run `npm run generate:deploy`)", (file) => {
    expect(readFileSync(path.join(DEPLOY_DIR, file), "utf8")).toBe(rendered.get(file));
  });
});
