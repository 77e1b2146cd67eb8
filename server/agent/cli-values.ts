import { constants } from "node:os";

/** Value parsers for the agent's flags: each returns the value, or an error phrased "expected …". */

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const fail = <T>(error: string): Parsed<T> => ({ ok: false, error });

export function parseIntIn(text: string, range: { min: number; max: number }): Parsed<number> {
  const value = /^[0-9]{1,9}$/.test(text) ? Number(text) : Number.NaN;
  if (Number.isInteger(value) && value >= range.min && value <= range.max) return ok(value);
  return fail(`expected an integer from ${range.min} to ${range.max}, got "${text}"`);
}

/** Seconds as an integer or decimal (the agent's --shutdown-timeout is an int; 0.5 is accepted too). */
export function parseSeconds(text: string): Parsed<number> {
  const value = /^[0-9]{1,7}(\.[0-9]{1,3})?$/.test(text) ? Number(text) : Number.NaN;
  return Number.isFinite(value) ? ok(value) : fail(`expected a number of seconds >= 0, got "${text}"`);
}

/** `SIGTERM`, `TERM`, `sigusr1` … : any signal this platform knows. */
export function parseSignal(text: string): Parsed<NodeJS.Signals> {
  const upper = text.toUpperCase();
  const name = upper.startsWith("SIG") ? upper : `SIG${upper}`;
  const known = Object.keys(constants.signals).find((signal) => signal === name);
  return known === undefined
    ? fail(`expected a signal name such as SIGTERM, SIGKILL, SIGINT or SIGUSR1, got "${text}"`)
    : ok(known as NodeJS.Signals);
}

/** torchrun's `--nnodes`: `N` or `N:N`. Like hyperpodrun, a range MIN:MAX with MIN != MAX is refused. */
export function parseNnodes(text: string): Parsed<string> {
  const parts = text.split(":");
  const counts = parts.map((part) => parseIntIn(part, { min: 1, max: 1_000_000 }));
  if (parts.length > 2 || counts.some((count) => !count.ok)) {
    return fail(`expected a node count N or N:N, got "${text}"`);
  }
  if (parts.length === 2 && parts[0] !== parts[1]) {
    return fail(`elastic cluster size is currently not supported (got "${text}"; use N or N:N)`);
  }
  return ok(text);
}

export type TeeMode = "none" | "stdout" | "stderr" | "both";

const TEE: Record<string, TeeMode> = { "0": "none", "1": "stdout", "2": "stderr", "3": "both" };

/** torchrun's `--tee`/`--redirects` standard-stream selector: 0 none, 1 stdout, 2 stderr, 3 both. */
export function parseTee(text: string): Parsed<TeeMode> {
  const mode = Object.hasOwn(TEE, text) ? TEE[text] : undefined;
  return mode === undefined ? fail(`expected 0, 1, 2 or 3, got "${text}"`) : ok(mode);
}

/** A word piece: whitespace, "…" (with \ escapes), '…', an escaped character, plain text, or a stray quote. */
const PIECE = /(\s+)|"((?:[^"\\]|\\[\s\S])*)"|'([^']*)'|\\([\s\S])|([^\s"'\\]+)|(["'\\])/gy;

function pieceText(match: RegExpMatchArray): string {
  return match[2]?.replace(/\\([\s\S])/g, "$1") ?? match[3] ?? match[4] ?? match[5] ?? "";
}

/**
 * Splits `--pre-train-args` like a shell would (whitespace, with '…' and "…" quoting and \ escapes outside
 * single quotes); no variables, globs or other expansions.
 */
export function splitShellWords(text: string): Parsed<string[]> {
  const words: string[] = [];
  let word: string | null = null;
  for (const match of text.matchAll(PIECE)) {
    if (match[6] !== undefined) return fail(`unmatched ${match[6]} in "${text}"`);
    if (match[1] === undefined) {
      word = (word ?? "") + pieceText(match);
    } else if (word !== null) {
      words.push(word);
      word = null;
    }
  }
  if (word !== null) words.push(word);
  return ok(words);
}

/** torchrun's device words for `--nproc-per-node`, resolved on the node (cli-env.ts). */
export const NPROC_MODES = ["auto", "cpu", "gpu"] as const;
export type NprocMode = (typeof NPROC_MODES)[number];

/** `--nproc-per-node`: a count, or auto / cpu / gpu (torchrun's `determine_local_world_size`). */
export function parseNprocPerNode(text: string): Parsed<number | NprocMode> {
  const mode = NPROC_MODES.find((candidate) => candidate === text);
  if (mode !== undefined) return ok(mode);
  const count = parseIntIn(text, { min: 1, max: 4096 });
  return count.ok ? count : fail(`expected auto, cpu, gpu or an integer from 1 to 4096, got "${text}"`);
}
