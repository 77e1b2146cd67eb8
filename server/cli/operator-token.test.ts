import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { operatorToken } from "./operator-token";

const cwd = mkdtempSync(path.join(tmpdir(), "rebound-cli-"));
const fileToken = "f".repeat(43);
writeFileSync(path.join(cwd, "operator-token"), fileToken);
const kubeconfig = path.join(cwd, "kubeconfig");
writeFileSync(
  kubeconfig,
  `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
users: [{name: u, user: {token: kube-user-token}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`,
);
const env: Record<string, string> = { REBOUND_DATA_DIR: "." };

describe("the CLI's token for the operator", () => {
  it("takes --token first, then REBOUND_OPERATOR_TOKEN", async () => {
    const withEnv = { ...env, REBOUND_OPERATOR_TOKEN: "from-env" };
    expect(await operatorToken({ flag: "from-flag", kubeconfig, env: withEnv, cwd })).toBe("from-flag");
    expect(await operatorToken({ flag: undefined, kubeconfig, env: withEnv, cwd })).toBe("from-env");
  });

  it("on Kubernetes sends the kubeconfig user's token", async () => {
    expect(await operatorToken({ flag: undefined, kubeconfig, env, cwd })).toBe("kube-user-token");
    const kubeEnv = { ...env, REBOUND_CLUSTER: "kubernetes", REBOUND_KUBECONFIG: kubeconfig };
    expect(await operatorToken({ flag: undefined, kubeconfig: undefined, env: kubeEnv, cwd })).toBe(
      "kube-user-token",
    );
  });

  it("locally reads <data dir>/operator-token, and has none where there is no file", async () => {
    expect(await operatorToken({ flag: undefined, kubeconfig: undefined, env, cwd })).toBe(fileToken);
    const elsewhere = { ...env, REBOUND_DATA_DIR: "missing" };
    expect(await operatorToken({ flag: undefined, kubeconfig: undefined, env: elsewhere, cwd })).toBeNull();
  });
});
