import { describe, expect, it } from "vitest";
import { createLineSplitter } from "./line-splitter";

function split(chunks: string[], maxChars = 100): string[] {
  const lines: string[] = [];
  const splitter = createLineSplitter({ maxChars, onLine: (line) => lines.push(line) });
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return lines;
}

describe("createLineSplitter", () => {
  it("splits on \\n, \\r\\n and \\r", () => {
    expect(split(["a\nb\r\nc\rd\n"])).toEqual(["a", "b", "c", "d"]);
  });

  it("joins lines split across chunks, including a \\r\\n split in two", () => {
    expect(split(["ste", "p=1\r", "\nstep", "=2\n"])).toEqual(["step=1", "step=2"]);
  });

  it("keeps empty lines and emits an unterminated last line at the end", () => {
    expect(split(["a\n\nb"])).toEqual(["a", "", "b"]);
    expect(split(["a\n"])).toEqual(["a"]);
    expect(split([])).toEqual([]);
  });

  it("keeps the first maxChars characters of a long line and drops the rest", () => {
    expect(split(["x".repeat(8), "y".repeat(8), "\nnext\n"], 10)).toEqual(["xxxxxxxxyy", "next"]);
  });

  it("bounds memory for a line that never ends", () => {
    const lines: string[] = [];
    const splitter = createLineSplitter({ maxChars: 16, onLine: (line) => lines.push(line) });
    for (let i = 0; i < 10_000; i += 1) splitter.push("z".repeat(1000));
    splitter.end();
    expect(lines).toEqual(["z".repeat(16)]);
  });
});
