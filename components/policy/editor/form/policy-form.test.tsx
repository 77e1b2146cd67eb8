import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { PolicyForm } from "./policy-form";

const POLICY = `restartPolicy:
  evalPeriodSeconds: 60
logMonitoringConfiguration:
  - name: hang
    logPattern: ".*step.*"
    expectedRecurringFrequencyInSeconds: 30
`;

function render(props: Partial<Parameters<typeof PolicyForm>[0]> & { yaml: string }) {
  return renderToStaticMarkup(
    <PolicyForm onChange={() => {}} readOnly={false} problems={[]} explanation={null} {...props} />,
  );
}

describe("PolicyForm", () => {
  it("shows the YAML's values, each rule with its explanation, and the schema's message beside its field", () => {
    const html = render({
      yaml: POLICY,
      problems: [
        { path: "logMonitoringConfiguration[0].expectedRecurringFrequencyInSeconds", message: "too short" },
      ],
      explanation: {
        restart: ["checks every 60 s"],
        rules: [{ name: "hang", text: "faults the job when no line matches .*step.* for 30 s" }],
      },
    });
    expect(html).toContain('value="60"');
    expect(html).toContain('value=".*step.*"');
    expect(html).toContain("Rule 1: hang");
    expect(html).toContain("faults the job when no line matches .*step.* for 30 s");
    expect(html).toContain("checks every 60 s");
    expect(html).toMatch(
      /aria-invalid="true"[^>]*aria-describedby="policy-form-logMonitoringConfiguration\.0\.expectedRecurringFrequencyInSeconds-message"/,
    );
    expect(html).toContain("too short");
    expect(html).toContain("Add a log rule");
  });

  it("is read-only with 'fix the YAML first' when the YAML does not read", () => {
    const html = render({ yaml: "restartPolicy: [\n" });
    expect(html).toContain("Fix the YAML first");
    expect(html).not.toContain("<input");
  });

  it("disables every field and hides the edit buttons for a reader", () => {
    const html = render({ yaml: POLICY, readOnly: true });
    expect(html).not.toContain("Add a log rule");
    expect(html).not.toContain("Remove Rule 1");
    const inputs = html.match(/<input[^>]*>/g) ?? [];
    expect(inputs.length).toBeGreaterThan(10);
    expect(inputs.every((input) => input.includes("disabled"))).toBe(true);
  });
});
