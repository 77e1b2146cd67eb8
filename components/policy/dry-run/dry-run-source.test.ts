import { describe, expect, it } from "vitest";
import { intervalMsOf } from "./dry-run-source";

describe("intervalMsOf", () => {
  it("reads seconds as typed into whole milliseconds", () => {
    expect(intervalMsOf("1")).toEqual({ ok: true, ms: 1000 });
    expect(intervalMsOf(" 0.25 ")).toEqual({ ok: true, ms: 250 });
    expect(intervalMsOf("0.0001")).toEqual({ ok: true, ms: 1 });
  });

  it("refuses what is not a positive number of seconds up to an hour, in words", () => {
    for (const typed of ["", "0", "-1", "abc", "NaN"]) {
      expect(intervalMsOf(typed)).toEqual({ ok: false, message: "expected seconds > 0, e.g. 1 or 0.5" });
    }
    expect(intervalMsOf("3601")).toEqual({ ok: false, message: "at most 3600 s between lines" });
  });
});
