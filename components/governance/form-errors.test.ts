import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fieldErrorsFromMessage, fieldErrorsOf, messageFor, serverRefusal } from "./form-errors";

describe("governance form errors", () => {
  it("keys zod issues by dotted path, first message wins", () => {
    const schema = z.object({
      weight: z.number().max(100, "at most 100"),
      resources: z.array(z.object({ guaranteed: z.number().min(0, "expected a number ≥ 0") })),
    });
    const parsed = schema.safeParse({ weight: 101, resources: [{ guaranteed: 1 }, { guaranteed: -1 }] });
    expect(parsed.success).toBe(false);
    expect(fieldErrorsOf(parsed.error?.issues ?? [])).toEqual({
      weight: "at most 100",
      "resources.1.guaranteed": "expected a number ≥ 0",
    });
  });

  it("reads the fields a server message names, in either path notation", () => {
    expect(
      fieldErrorsFromMessage(
        "resources[1].guaranteed: expected a number ≥ 0; borrowLimitPercent: at most 500",
      ),
    ).toEqual({ "resources.1.guaranteed": "expected a number ≥ 0", borrowLimitPercent: "at most 500" });
    expect(fieldErrorsFromMessage("changed by Team Lead at 19:42; reload to see their change")).toEqual({});
  });

  it("takes the AppError code over the tRPC code, and the live check over the server's", () => {
    const refusal = serverRefusal({
      message: "version: stale",
      data: { code: "CONFLICT", appErrorCode: "CONFLICT" },
    });
    expect(refusal).toEqual({ code: "CONFLICT", message: "version: stale", fields: { version: "stale" } });
    expect(serverRefusal({ message: "nope", data: { code: "FORBIDDEN" } }).code).toBe("FORBIDDEN");
    expect(
      serverRefusal({
        message: "two issues",
        data: {
          code: "BAD_REQUEST",
          issues: [{ path: "resources[2].absoluteBorrowLimit", message: "no borrow" }],
        },
      }).fields,
    ).toEqual({ "resources.2.absoluteBorrowLimit": "no borrow" });
    expect(serverRefusal(new Error("boom")).code).toBeNull();
    expect(messageFor("a", { a: "live" }, { a: "server" })).toBe("live");
    expect(messageFor("a", {}, { a: "server" })).toBe("server");
  });
});
