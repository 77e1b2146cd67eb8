import { describe, expect, it } from "vitest";
import { CONSOLE_HEAP_FLAG, consoleNodeOptions } from "./console-heap";

describe("consoleNodeOptions", () => {
  it("adds the heap cap to nothing, or after the caller's own options", () => {
    expect(consoleNodeOptions(undefined)).toBe(CONSOLE_HEAP_FLAG);
    expect(consoleNodeOptions("  ")).toBe(CONSOLE_HEAP_FLAG);
    expect(consoleNodeOptions("--enable-source-maps")).toBe(`--enable-source-maps ${CONSOLE_HEAP_FLAG}`);
  });

  it("leaves a cap the caller chose alone", () => {
    expect(consoleNodeOptions("--max-old-space-size=1024")).toBe("--max-old-space-size=1024");
    expect(consoleNodeOptions("--inspect --max-old-space-size 512")).toBe(
      "--inspect --max-old-space-size 512",
    );
  });
});
