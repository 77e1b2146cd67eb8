import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";

/** The demo checkpoint: `{"step": n}` in `<dir>/checkpoint.json`, written atomically (temp file + rename). */

const FILE = "checkpoint.json";

export function readCheckpoint(dir: string): number | null {
  try {
    const value: unknown = JSON.parse(readFileSync(path.join(dir, FILE), "utf8"));
    const step = typeof value === "object" && value !== null ? (value as { step?: unknown }).step : undefined;
    return typeof step === "number" && Number.isInteger(step) && step >= 0 ? step : null;
  } catch {
    return null; // no checkpoint yet
  }
}

export function writeJsonAtomically(file: string, value: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.tmp-${process.pid}`;
  writeFileSync(temp, `${JSON.stringify(value)}\n`);
  renameSync(temp, file);
}

export function writeCheckpoint(dir: string, step: number): void {
  writeJsonAtomically(path.join(dir, FILE), { step });
}
