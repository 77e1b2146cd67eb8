import { diffLines } from "diff";
import type { DiffLine } from "./types";

/** A line diff of two policy versions (the `diff` package's Myers diff), numbered on both sides. */
export function diffPolicyYaml(from: string, to: string): DiffLine[] {
  const out: DiffLine[] = [];
  let fromLine = 1;
  let toLine = 1;
  for (const change of diffLines(from, to)) {
    const lines = change.value.split("\n");
    if (lines.at(-1) === "") lines.pop();
    for (const text of lines) {
      if (change.added) out.push({ kind: "added", text, fromLine: null, toLine: toLine++ });
      else if (change.removed) out.push({ kind: "removed", text, fromLine: fromLine++, toLine: null });
      else out.push({ kind: "same", text, fromLine: fromLine++, toLine: toLine++ });
    }
  }
  return out;
}
