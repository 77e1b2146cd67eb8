/**
 * What one log-rule pattern may cost, checked when a job is validated (and again where the agent loads its
 * rules). re2js matches in time linear in the line, but the factor is the number of instructions of the
 * compiled program that can be alive at once: `(.*a){100}x` compiles to 503 instructions and took 400 ms on
 * one 16 KiB line, so 100 such rules held an agent for 40 s per line. Refused, with the reason:
 * - a counted repetition `{n}`, `{n,}`, `{n,m}` of more than MAX_REPEAT copies, nested ones multiplied
 *   (`((x){10}){10}` is 100 copies of x): `.*\d{4}-\d{2}-\d{2}.*`, a UUID `[0-9a-f]{8}-…{12}` or a git
 *   hash `[0-9a-f]{40}` fit; a repetition is what turns a short pattern into a large program;
 * - more than MAX_REPEAT_TOTAL counted copies in one pattern, all repetitions added up;
 * - a compiled program of more than MAX_PROGRAM_INSTRUCTIONS instructions. Any pattern of at most
 *   MAX_PATTERN_CHARS characters without counted repetition compiles to fewer (about one instruction a
 *   character); the realistic rules (HyperPod's documented ones and examples/) compile to 11-111.
 * The scan reads the RE2 text that python-syntax.ts produced; it builds no RegExp from it.
 */

export const MAX_REPEAT = 64;
export const MAX_REPEAT_TOTAL = 128;
export const MAX_PROGRAM_INSTRUCTIONS = 1200;

type Repeat = { atom: string; count: number; at: number; copies: number };

const REPEAT = /^\{(\d+)(?:(,)(\d*))?\}/;

/** Where the atom that starts at `i` ends (an escape, a class, or one character; groups are handled by the caller). */
function atomEnd(src: string, i: number): number {
  const c = src[i];
  if (c === "\\") return escapeEnd(src, i);
  if (c === "[") return classEnd(src, i);
  const code = src.charCodeAt(i);
  return code >= 0xd800 && code <= 0xdbff ? i + 2 : i + 1;
}

function escapeEnd(src: string, i: number): number {
  const c = src[i + 1];
  if (c === "Q") {
    const end = src.indexOf("\\E", i + 2);
    return end === -1 ? src.length : end + 2;
  }
  if ((c === "x" || c === "p" || c === "P") && src[i + 2] === "{") {
    const end = src.indexOf("}", i + 3);
    return end === -1 ? src.length : end + 1;
  }
  if (c === "p" || c === "P") return i + 3;
  return i + 2;
}

function classEnd(src: string, start: number): number {
  let i = start + 1;
  if (src[i] === "^") i += 1;
  if (src[i] === "]") i += 1;
  while (i < src.length && src[i] !== "]") {
    if (src[i] === "\\") i = escapeEnd(src, i);
    else if (src.startsWith("[:", i)) i = Math.max(src.indexOf(":]", i + 2) + 2, i + 1);
    else i += 1;
  }
  return Math.min(i + 1, src.length);
}

/** `{n}`, `{n,}`, `{n,m}` at `i`: the copies it asks for (the larger bound) and where it ends. */
function repeatAt(src: string, i: number): { count: number; end: number } | null {
  const m = REPEAT.exec(src.slice(i, i + 24));
  if (!m) return null;
  const low = Number(m[1]);
  const high = m[2] === undefined || m[3] === "" ? low : Number(m[3]);
  return { count: Math.max(low, high), end: i + m[0].length };
}

type Scan = {
  readonly src: string;
  readonly repeats: Repeat[];
  readonly open: number[];
  lastAtom: { start: number; end: number } | null;
};

/** Reads the token at `i`; returns where the next starts. */
function scanToken(scan: Scan, i: number): number {
  const c = scan.src[i];
  const repeat = c === "{" && scan.lastAtom !== null ? repeatAt(scan.src, i) : null;
  if (repeat !== null && scan.lastAtom !== null) {
    addRepeat(scan.repeats, { src: scan.src, atom: scan.lastAtom, count: repeat.count });
    scan.lastAtom = null;
    return repeat.end;
  }
  if (c === "(") scan.open.push(i);
  if (c === ")") {
    scan.lastAtom = { start: scan.open.pop() ?? 0, end: i + 1 };
    return i + 1;
  }
  if (c === "(" || c === "|" || c === "*" || c === "+" || c === "?") {
    scan.lastAtom = null;
    return i + 1;
  }
  const end = atomEnd(scan.src, i);
  scan.lastAtom = { start: i, end };
  return end;
}

/** Every counted repetition of `src`, nested ones with their copies multiplied by the enclosing counts. */
export function countedRepeats(src: string): Repeat[] {
  const scan: Scan = { src, repeats: [], open: [], lastAtom: null };
  let i = 0;
  while (i < src.length) i = scanToken(scan, i);
  return scan.repeats;
}

function addRepeat(
  repeats: Repeat[],
  input: { src: string; atom: { start: number; end: number }; count: number },
): void {
  const { atom, count } = input;
  for (const inner of repeats) {
    if (inner.at >= atom.start && inner.at < atom.end) inner.copies *= count;
  }
  repeats.push({ atom: input.src.slice(atom.start, atom.end), count, at: atom.start, copies: count });
}

function nesting(repeat: Repeat): string {
  if (repeat.copies === repeat.count) return `${repeat.count} times`;
  return `${repeat.count} times inside another repetition (${repeat.copies} copies)`;
}

/** Why `src` (RE2 syntax) costs too much to run on every line, or null. */
export function repeatCostProblem(src: string): string | null {
  const repeats = countedRepeats(src);
  const heavy = repeats.find((repeat) => repeat.copies > MAX_REPEAT);
  if (heavy) {
    return `repeats ${heavy.atom} ${nesting(heavy)}; at most ${MAX_REPEAT}`;
  }
  // Nested repetitions count with their enclosing counts multiplied in, and the enclosing ones count too.
  const total = repeats.reduce((sum, repeat) => sum + repeat.copies, 0);
  if (total > MAX_REPEAT_TOTAL) {
    const list = repeats.map((repeat) => `${repeat.atom}{${repeat.count}}`).join(" ");
    return `has ${total} copies from counted repetitions in all (${list}); at most ${MAX_REPEAT_TOTAL}`;
  }
  return null;
}

export function programSizeProblem(instructions: number): string | null {
  if (instructions <= MAX_PROGRAM_INSTRUCTIONS) return null;
  return `compiles to ${instructions} instructions; at most ${MAX_PROGRAM_INSTRUCTIONS} (every instruction is paid on every character of every line)`;
}
