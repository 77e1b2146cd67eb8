import { describe, expect, it } from "vitest";
import { completionsAt, fieldAt } from "./completion";
import { buildFieldCatalog } from "./field-catalog";
import { runPolicyJsonSchema } from "./run-policy-json-schema";

const catalog = buildFieldCatalog(runPolicyJsonSchema(), {
  "logMonitoringConfiguration[].logPattern": { summary: "the pattern every line is matched against" },
});

function at(source: string) {
  const offset = source.indexOf("|");
  return completionsAt(source.replace("|", ""), offset, catalog);
}

const RULES = `logMonitoringConfiguration:
  - name: hang
    logPattern: ".*step.*"
`;

describe("completionsAt", () => {
  it("offers the top-level runPolicy fields", () => {
    const labels = at("|")?.options.map((option) => option.label);
    expect(labels).toEqual(
      expect.arrayContaining(["cleanPodPolicy", "restartPolicy", "logMonitoringConfiguration"]),
    );
  });

  it("offers a rule's fields, required first, leaving out those the rule already has", () => {
    const options = at(`${RULES}    |`)?.options ?? [];
    const labels = options.map((option) => option.label);
    expect(labels).not.toContain("name");
    expect(labels).not.toContain("logPattern");
    expect(labels).toEqual(
      expect.arrayContaining(["expectedRecurringFrequencyInSeconds", "operator", "stopPattern"]),
    );
    expect(options.find((option) => option.label === "operator")?.apply).toBe("operator: ");
  });

  it("offers all of a new item's fields, whatever the previous item has", () => {
    const labels = at(`${RULES}  - |`)?.options.map((option) => option.label);
    expect(labels?.slice(0, 2)).toEqual(["name", "logPattern"]);
  });

  it("leaves out keys written below the cursor in the same mapping", () => {
    const labels = at("restartPolicy:\n  |\n  evalPeriodSeconds: 30\njobMaxRetryCount: 3\n")?.options.map(
      (o) => o.label,
    );
    expect(labels).not.toContain("evalPeriodSeconds");
    expect(labels).toContain("maxFullJobRestarts");
    expect(labels).not.toContain("jobMaxRetryCount");
  });

  it("completes enum values of cleanPodPolicy and a rule's operator", () => {
    expect(at("cleanPodPolicy: O|")).toMatchObject({ from: "cleanPodPolicy: ".length });
    expect(at("cleanPodPolicy: |")?.options.map((option) => option.label)).toEqual([
      "All",
      "OnlyComplete",
      "None",
    ]);
    expect(at(`${RULES}    operator: |`)?.options.map((option) => option.label)).toEqual([
      "gt",
      "lt",
      "eq",
      "gteq",
      "lteq",
    ]);
    expect(at(`${RULES}    faultOnMatch: |`)?.options.map((option) => option.label)).toEqual([
      "true",
      "false",
    ]);
  });

  it("offers nothing for free values or unknown places", () => {
    expect(at("jobMaxRetryCount: |")).toBeNull();
    expect(at(`${RULES}    logPattern: ".*|`)).toBeNull();
    expect(at("notAField:\n  |")).toBeNull();
  });
});

describe("fieldAt", () => {
  it("finds the field whose key is under the pointer, with the key's span", () => {
    const offset = RULES.indexOf("logPattern") + 3;
    const found = fieldAt(RULES, offset, catalog);
    expect(found?.field.path).toBe("logMonitoringConfiguration[].logPattern");
    expect(found?.field.doc?.summary).toBe("the pattern every line is matched against");
    expect(RULES.slice(found?.from, found?.to)).toBe("logPattern");
    expect(fieldAt(RULES, RULES.indexOf("hang"), catalog)).toBeNull();
    expect(fieldAt(RULES, RULES.indexOf("name"), catalog)?.field.path).toBe(
      "logMonitoringConfiguration[].name",
    );
  });
});
