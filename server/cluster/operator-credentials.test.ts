import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createOperatorCredentials } from "./operator-credentials";

const dir = mkdtempSync(path.join(tmpdir(), "rebound-credentials-"));
const serviceAccountTokenFile = path.join(dir, "sa-token");

describe("the console's token for the operator", () => {
  it("prefers REBOUND_OPERATOR_TOKEN", () => {
    const token = createOperatorCredentials({
      envToken: "env",
      cluster: "kubernetes",
      dataDir: dir,
      serviceAccountTokenFile,
    });
    expect(token()).toBe("env");
  });

  it("on Kubernetes sends the service-account token, re-read 10 s later once rotated", () => {
    let now = 0;
    writeFileSync(serviceAccountTokenFile, "first\n");
    const token = createOperatorCredentials(
      { envToken: undefined, cluster: "kubernetes", dataDir: dir, serviceAccountTokenFile },
      () => now,
    );
    expect(token()).toBe("first");
    writeFileSync(serviceAccountTokenFile, "rotated\n");
    now = 9_000;
    expect(token()).toBe("first");
    now = 10_000;
    expect(token()).toBe("rotated");
  });

  it("locally reads <data dir>/operator-token, as soon as the operator has made it", () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "rebound-credentials-"));
    const token = createOperatorCredentials(
      { envToken: undefined, cluster: "local", dataDir, serviceAccountTokenFile },
      () => 0,
    );
    expect(token()).toBeUndefined();
    writeFileSync(path.join(dataDir, "operator-token"), `${"k".repeat(43)}\n`);
    expect(token()).toBe("k".repeat(43));
  });
});
