/**
 * Translates the Python `re` dialect that users write in log rules into RE2 syntax, rejecting what a
 * linear-time engine cannot run. Pure string scanning: no RegExp is ever built from the user's text.
 *
 * Translations (so Python semantics are kept): `\Z` -> `\z`, `\uXXXX`/`\UXXXXXXXX` -> `\x{...}`,
 * `{,n}` -> `{0,n}`, `(?#comment)` removed, inline flags `a`/`u` dropped (RE2 classes are already
 * ASCII), a `[` inside a character class escaped (Python has no POSIX `[:alpha:]` classes).
 * Rejections: backreferences, lookahead/lookbehind, atomic groups, possessive quantifiers,
 * conditionals, and the `x`/`L`/`U` inline flags. Also refused, because Python (3.11 and later, which the
 * HyperPod agent runs on) refuses them and the agent then loads none of the job's rules: global flags
 * `(?i)` anywhere but at the start of the pattern, and global flags turned off `(?-i)`.
 */

export type Translation = { ok: true; source: string } | { ok: false; reason: string };

type Step = { ok: true; text: string; next: number; quantifier: boolean } | { ok: false; reason: string };

const ENGINE_NOTE = "is not supported: patterns run with a linear-time engine (RE2 syntax)";

const GROUP_REJECTIONS: readonly (readonly [string, string])[] = [
  ["(?<=", "lookbehind (?<=...)"],
  ["(?<!", "negative lookbehind (?<!...)"],
  ["(?=", "lookahead (?=...)"],
  ["(?!", "negative lookahead (?!...)"],
  ["(?>", "atomic group (?>...)"],
  ["(?P=", "named backreference (?P=name)"],
  ["(?(", "conditional group (?(id)yes|no)"],
];

const unsupported = (construct: string): Step => ({ ok: false, reason: `${construct} ${ENGINE_NOTE}` });
const literal = (text: string, next: number): Step => ({ ok: true, text, next, quantifier: false });

const isOctal = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "7";
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";

function scanUnicodeEscape(src: string, i: number, width: number): Step {
  const hex = src.slice(i + 2, i + 2 + width);
  if (hex.length !== width || !/^[0-9a-fA-F]+$/.test(hex)) {
    return { ok: false, reason: `bad escape \\${src[i + 1]} at position ${i}` };
  }
  return literal(`\\x{${hex}}`, i + 2 + width);
}

/** Python: `\N` with N in 1-9 is a group reference unless it is a 3-digit octal escape. */
function scanDigitEscape(src: string, i: number): Step {
  const [a, b, c] = [src[i + 1], src[i + 2], src[i + 3]];
  if (a === "0" || (isOctal(a) && isOctal(b) && isOctal(c))) return literal("\\", i + 1);
  const ref = isDigit(b) ? `${a}${b}` : `${a}`;
  return unsupported(`backreference \\${ref}`);
}

function scanEscape(src: string, i: number, inClass: boolean): Step {
  const c = src[i + 1];
  if (c === "u") return scanUnicodeEscape(src, i, 4);
  if (c === "U") return scanUnicodeEscape(src, i, 8);
  if (c === "Z" && !inClass) return literal("\\z", i + 2);
  if (isDigit(c) && !inClass) return scanDigitEscape(src, i);
  return literal(src.slice(i, i + 2), i + 2);
}

function scanClassItem(src: string, i: number): Step {
  if (src[i] === "\\") return scanEscape(src, i, true);
  return literal(src[i] === "[" ? "\\[" : (src[i] ?? ""), i + 1);
}

function scanClass(src: string, start: number): Step {
  const head = /^\[\^?\]?/.exec(src.slice(start, start + 3))?.[0] ?? "[";
  let i = start + head.length;
  let text = head;
  while (i < src.length && src[i] !== "]") {
    const step = scanClassItem(src, i);
    if (!step.ok) return step;
    text += step.text;
    i = step.next;
  }
  // An unterminated class is left for RE2 to report.
  return i < src.length ? literal(`${text}]`, i + 1) : literal(text, i);
}

const stripNoOpFlags = (flags: string | undefined): string => (flags ?? "").replace(/[au]/g, "");

function checkFlags(flags: string): Step | null {
  const bad = [...flags].find((f) => !"imsau".includes(f));
  if (bad === "x") return unsupported("verbose flag (?x)");
  return bad === undefined ? null : unsupported(`inline flag (?${bad})`);
}

/** Python accepts global flags only before anything else, and turns flags off only in a scoped group. */
function checkGlobalFlags(flags: string, at: { i: number; atStart: boolean }): Step | null {
  if (flags.includes("-"))
    return {
      ok: false,
      reason: `missing : at position ${at.i}: flags are turned off only in a group, (?-i:...)`,
    };
  if (at.atStart) return null;
  return {
    ok: false,
    reason: `global flags not at the start of the expression at position ${at.i} (Python refuses it): write (?${flags}) first, or a group (?${flags}:...)`,
  };
}

function scanFlags(src: string, at: { i: number; atStart: boolean }): Step | null {
  const i = at.i;
  const m = /^\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])/.exec(src.slice(i, i + 24));
  // `(?)` and the like are left for RE2 to report.
  if (!m || m[0] === "(?)") return null;
  const rejected = checkFlags(`${m[1] ?? ""}${m[2] ?? ""}`);
  if (rejected) return rejected;
  const global = m[3] === ")" ? checkGlobalFlags(m[0].slice(2, -1), at) : null;
  if (global) return global;
  return literal(rebuildFlags(stripNoOpFlags(m[1]), stripNoOpFlags(m[2]), m[3] === ":"), i + m[0].length);
}

function rebuildFlags(on: string, off: string, scoped: boolean): string {
  if (on === "" && off === "") return scoped ? "(?:" : "";
  return `(?${on}${off === "" ? "" : `-${off}`}${scoped ? ":" : ")"}`;
}

function scanGroupOpen(src: string, at: { i: number; atStart: boolean }): Step {
  const i = at.i;
  const rejected = GROUP_REJECTIONS.find(([prefix]) => src.startsWith(prefix, i));
  if (rejected) return unsupported(rejected[1]);
  if (src.startsWith("(?#", i)) {
    const end = src.indexOf(")", i);
    return end === -1 ? { ok: false, reason: "missing ), unterminated comment" } : literal("", end + 1);
  }
  return scanFlags(src, at) ?? literal("(", i + 1);
}

/** `{m}`, `{m,}`, `{,n}`, `{m,n}`, `{,}` are repeats in Python; anything else is a literal brace. */
function scanBrace(src: string, i: number): Step {
  const m = /^\{(\d*)(,\d*)?\}/.exec(src.slice(i, i + 24));
  if (!m || (m[1] === "" && m[2] === undefined)) return literal("\\{", i + 1);
  const low = m[1] === "" ? "0" : (m[1] ?? "0");
  return { ok: true, text: `{${low}${m[2] ?? ""}}`, next: i + m[0].length, quantifier: true };
}

type Position = { i: number; afterQuantifier: boolean; atStart: boolean };

function scanToken(src: string, { i, afterQuantifier, atStart }: Position): Step {
  const c = src[i] ?? "";
  if (afterQuantifier && c === "+") return unsupported("possessive quantifier (*+, ++, ?+, {m,n}+)");
  switch (c) {
    case "\\":
      return scanEscape(src, i, false);
    case "[":
      return scanClass(src, i);
    case "(":
      return scanGroupOpen(src, { i, atStart });
    case "{":
      return scanBrace(src, i);
    case "*":
    case "+":
      return { ok: true, text: c, next: i + 1, quantifier: true };
    case "?":
      // After a quantifier `?` is the lazy marker; otherwise it is a quantifier itself.
      return { ok: true, text: c, next: i + 1, quantifier: !afterQuantifier };
    default:
      return literal(c, i + 1);
  }
}

export function translatePythonPattern(source: string): Translation {
  let out = "";
  let i = 0;
  let afterQuantifier = false;
  // Only global flag groups so far (Python accepts `(?i)(?s)a`, not `a(?i)`).
  let atStart = true;
  while (i < source.length) {
    const step = scanToken(source, { i, afterQuantifier, atStart });
    if (!step.ok) return step;
    atStart &&= /^\(\?[a-zA-Z]*\)$/.test(source.slice(i, step.next));
    out += step.text;
    i = step.next;
    afterQuantifier = step.quantifier;
  }
  return { ok: true, source: out };
}
