import { diffLines } from "diff";
import type { DiffLine } from "./types";

const kindOf = (change: { added: boolean; removed: boolean }): DiffLine["kind"] =>
  change.added ? "added" : change.removed ? "removed" : "same";

function linesOf(value: string): string[] {
  const lines = value.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** A line diff of two policy versions (the `diff` package's Myers diff), numbered on both sides. */
export function diffPolicyYaml(from: string, to: string): DiffLine[] {
  const out: DiffLine[] = [];
  let fromLine = 1;
  let toLine = 1;
  for (const change of diffLines(from, to)) {
    const kind = kindOf(change);
    for (const text of linesOf(change.value)) {
      out.push({
        kind,
        text,
        fromLine: kind === "added" ? null : fromLine++,
        toLine: kind === "removed" ? null : toLine++,
      });
    }
  }
  return out;
}
