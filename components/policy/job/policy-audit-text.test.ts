import { describe, expect, it } from "vitest";
import { policyAuditText } from "./policy-audit-text";

describe("policyAuditText", () => {
  it("names the version a save made, with its message", () => {
    const details = { before: { version: 2 }, after: { version: 3, message: "stall after 5 s", yaml: "…" } };
    expect(policyAuditText("policy.save", details)).toBe("saved v3: stall after 5 s");
    expect(policyAuditText("policy.create", { before: null, after: { version: 1, message: "" } })).toBe(
      "created the policy (v1)",
    );
  });

  it("names the version an apply or a promotion put on the job", () => {
    const policy = { id: "p", name: "demo-llm-policy", version: 3 };
    expect(policyAuditText("policy.apply", { policy, before: {}, after: {} })).toBe(
      "applied demo-llm-policy v3 (enforcing)",
    );
    expect(policyAuditText("policy.promote", { policy })).toBe(
      "promoted the shadow demo-llm-policy v3 to enforcing",
    );
  });

  it("says which shadow was attached or detached", () => {
    const v2 = { id: "p", name: "hang", version: 2 };
    expect(policyAuditText("policy.shadow", { before: null, after: v2 })).toBe("shadow: hang v2");
    expect(policyAuditText("policy.unshadow", { before: v2, after: null })).toBe(
      "detached the shadow hang v2",
    );
  });

  it("keeps entries of an unknown shape readable", () => {
    expect(policyAuditText("policy.other", { a: 1 })).toBe('{"a":1}');
    expect(policyAuditText("policy.apply", "odd")).toBe("applied a version (enforcing)");
  });
});
