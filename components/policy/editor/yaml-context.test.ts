import { describe, expect, it } from "vitest";
import { joinPath, keyPathAtLine, policyPath, yamlContextAt } from "./yaml-context";

/** The context at the `|` in `source`. */
function at(source: string) {
  const offset = source.indexOf("|");
  return yamlContextAt(source.replace("|", ""), offset);
}

const RULES = `restartPolicy:
  evalPeriodSeconds: 30
logMonitoringConfiguration:
  - name: hang
    logPattern: ".*step.*"
`;

describe("yamlContextAt", () => {
  it("completes top-level keys at column 0", () => {
    expect(at("clean|")).toEqual({ kind: "key", parent: [], prefix: "clean", from: 0 });
  });

  it("finds the mapping a nested key belongs to", () => {
    const context = at("restartPolicy:\n  evalPeriodSeconds: 30\n  max|");
    expect(context).toMatchObject({ kind: "key", parent: ["restartPolicy"], prefix: "max" });
  });

  it("reads a key inside a list item, on the item's first line and on the lines after it", () => {
    expect(at(`${RULES}    expected|`)).toMatchObject({
      kind: "key",
      parent: ["logMonitoringConfiguration", "[]"],
      prefix: "expected",
    });
    expect(at(`${RULES}  - na|`)).toMatchObject({
      kind: "key",
      parent: ["logMonitoringConfiguration", "[]"],
    });
  });

  it("accepts a list written at its key's own indentation", () => {
    const source = "logMonitoringConfiguration:\n- name: hang\n  op|";
    expect(at(source)).toMatchObject({
      kind: "key",
      parent: ["logMonitoringConfiguration", "[]"],
      prefix: "op",
    });
  });

  it("skips blank lines, comments and earlier items", () => {
    const source = `${RULES}\n  # the second rule\n  - name: nan\n    logPattern: "nan"\n\n    fault|`;
    expect(at(source)).toMatchObject({ kind: "key", parent: ["logMonitoringConfiguration", "[]"] });
  });

  it("returns to the top level after a nested block", () => {
    expect(at(`${RULES}job|`)).toMatchObject({ kind: "key", parent: [], prefix: "job" });
  });

  it("reads the value being typed with its field path and where it starts", () => {
    const source = `${RULES}    operator: gt|`;
    const context = at(source);
    expect(context).toMatchObject({
      kind: "value",
      path: ["logMonitoringConfiguration", "[]", "operator"],
      prefix: "gt",
    });
    expect(context?.from).toBe(source.indexOf("gt|"));
    expect(at("cleanPodPolicy: |")).toMatchObject({ kind: "value", path: ["cleanPodPolicy"], prefix: "" });
  });

  it("gives nothing inside a quoted value or a flow mapping", () => {
    expect(at(`${RULES}    logPattern: ".*ste|`)).toBeNull();
    expect(at("restartPolicy: { eval|")).toBeNull();
  });

  it("sees the runPolicy of a whole job", () => {
    const source = "kind: HyperPodPyTorchJob\nspec:\n  runPolicy:\n    restartPolicy:\n      eval|";
    const context = at(source);
    expect(context?.kind === "key" ? joinPath(policyPath(context.parent)) : null).toBe("restartPolicy");
  });
});

describe("keyPathAtLine", () => {
  it("names the field written on a line", () => {
    expect(keyPathAtLine(RULES, 1)).toEqual(["restartPolicy", "evalPeriodSeconds"]);
    expect(keyPathAtLine(RULES, 3)).toEqual(["logMonitoringConfiguration", "[]", "name"]);
    expect(keyPathAtLine(RULES, 4)).toEqual(["logMonitoringConfiguration", "[]", "logPattern"]);
    expect(keyPathAtLine(RULES, 2)).toEqual(["logMonitoringConfiguration"]);
    expect(keyPathAtLine(RULES, 5)).toBeNull();
  });
});

describe("joinPath", () => {
  it("writes list items as []", () => {
    expect(joinPath(["logMonitoringConfiguration", "[]", "logPattern"])).toBe(
      "logMonitoringConfiguration[].logPattern",
    );
    expect(joinPath(["restartPolicy", "evalPeriodSeconds"])).toBe("restartPolicy.evalPeriodSeconds");
  });
});
