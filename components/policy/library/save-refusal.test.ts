import { describe, expect, it } from "vitest";
import { saveRefusal } from "./save-refusal";

describe("saveRefusal", () => {
  it("reads a CONFLICT with its message naming who saved first", () => {
    const refusal = saveRefusal({
      message: "version 3 was saved by Ana Engineer at 2026-11-24 22:10 UTC; reload to edit it",
      data: { appErrorCode: "CONFLICT", code: "CONFLICT", issues: null },
    });
    expect(refusal).toMatchObject({ code: "CONFLICT", problems: [], fields: {} });
    expect(refusal.message).toContain("Ana Engineer");
  });

  it("puts an invalid policy's errors at their lines and other inputs' messages by field", () => {
    const refusal = saveRefusal({
      message: "the policy has 1 error; nothing was saved",
      data: {
        appErrorCode: null,
        code: "BAD_REQUEST",
        issues: [
          {
            path: "yaml.logMonitoringConfiguration[0].logPattern",
            message: "line 3, column 17: lookahead is not supported",
          },
          { path: "message", message: "at most 500 characters" },
        ],
      },
    });
    expect(refusal.code).toBe("BAD_REQUEST");
    expect(refusal.problems).toEqual([
      {
        path: "logMonitoringConfiguration[0].logPattern",
        line: 3,
        column: 17,
        message: "lookahead is not supported",
      },
    ]);
    expect(refusal.fields).toEqual({ message: "at most 500 characters" });
  });

  it("names the field of an AppError's message, and survives anything thrown", () => {
    expect(
      saveRefusal({
        message: 'name: Platform already has a policy named "hang"',
        data: { appErrorCode: "CONFLICT" },
      }).fields,
    ).toEqual({
      name: 'Platform already has a policy named "hang"',
    });
    expect(saveRefusal(new Error("network down"))).toMatchObject({ code: null, message: "network down" });
  });
});
