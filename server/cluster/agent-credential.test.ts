import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { agentCredentials, deriveAgentCredential, loadAgentKey } from "./agent-credential";

const dir = () => mkdtempSync(path.join(tmpdir(), "agent-key-"));

describe("the agents' credentials", () => {
  it("differ per pod: another name, or the same name in another namespace, has another", () => {
    const key = Buffer.alloc(32, 7);
    const llm = deriveAgentCredential(key, { namespace: "hyperpod-ns-llm", name: "llm-worker-0" });
    expect(llm).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(deriveAgentCredential(key, { namespace: "hyperpod-ns-llm", name: "llm-worker-1" })).not.toBe(llm);
    expect(deriveAgentCredential(key, { namespace: "hyperpod-ns-vision", name: "llm-worker-0" })).not.toBe(
      llm,
    );
    expect(
      deriveAgentCredential(Buffer.alloc(32, 8), { namespace: "hyperpod-ns-llm", name: "llm-worker-0" }),
    ).not.toBe(llm);
  });

  it("survive an operator restart: the key is created once (0600) and read again", () => {
    const file = path.join(dir(), "local", "agent-key");
    const first = agentCredentials(loadAgentKey(file));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const bytes = readFileSync(file);
    const again = agentCredentials(loadAgentKey(file));
    expect(readFileSync(file)).toEqual(bytes);
    const pod = { namespace: "ns", name: "job-worker-0" };
    expect(again.credentialFor(pod)).toBe(first.credentialFor(pod));
  });

  it("refuse a key file too short to be one, naming it", () => {
    const file = path.join(dir(), "agent-key");
    writeFileSync(file, "short");
    expect(() => loadAgentKey(file)).toThrow(`agent key ${file}: 5 bytes, at least 32 expected`);
  });
});
