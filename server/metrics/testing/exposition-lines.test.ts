import { describe, expect, it } from "vitest";
import { canonicalLines } from "./exposition-lines";

describe("canonicalLines", () => {
  it("drops blank lines and sorts each sample's labels, keeping escapes and values", () => {
    const text = [
      "# HELP h H {a=b}.",
      "# TYPE h histogram",
      "",
      'h_bucket{le="+Inf",b="x\\",y=\\"}",a="\\\\"} 3',
      "h_sum 1.5",
      "",
    ].join("\n");
    expect(canonicalLines(text)).toEqual([
      "# HELP h H {a=b}.",
      "# TYPE h histogram",
      'h_bucket{a="\\\\",b="x\\",y=\\"}",le="+Inf"} 3',
      "h_sum 1.5",
    ]);
  });

  it("keeps lines apart that differ in a label value, a label name or the value", () => {
    const base = canonicalLines('m{a="1",b="2"} 1');
    expect(canonicalLines('m{b="2",a="1"} 1')).toEqual(base);
    for (const other of ['m{a="1",b="3"} 1', 'm{a="1",c="2"} 1', 'm{a="1",b="2"} 2', 'm{a="1"} 1']) {
      expect(canonicalLines(other)).not.toEqual(base);
    }
  });

  it("refuses a label block it cannot read", () => {
    expect(() => canonicalLines('m{a="1" b="2"} 1')).toThrow('unparsable labels in: m{a="1" b="2"} 1');
  });
});
