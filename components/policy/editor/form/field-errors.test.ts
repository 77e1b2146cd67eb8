import { describe, expect, it } from "vitest";
import { fieldErrors, formKey } from "./field-errors";

describe("fieldErrors", () => {
  it("keys the schema's messages as the form's fields look them up", () => {
    const errors = fieldErrors([
      {
        path: "logMonitoringConfiguration[1].expectedRecurringFrequencyInSeconds",
        message: "expected a number",
      },
      { path: "logMonitoringConfiguration[1].expectedRecurringFrequencyInSeconds", message: "second" },
      { path: "spec.runPolicy.restartPolicy.evalPeriodSeconds", message: "expected ≥ 1" },
    ]);
    expect(errors[formKey(["logMonitoringConfiguration", 1, "expectedRecurringFrequencyInSeconds"])]).toBe(
      "expected a number",
    );
    expect(errors[formKey(["restartPolicy", "evalPeriodSeconds"])]).toBe("expected ≥ 1");
  });
});
