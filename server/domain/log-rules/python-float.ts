/**
 * Python `float(text)` for a captured group: surrounding whitespace is ignored, `_` may separate digits,
 * and "inf", "infinity", "nan" (any case, optional sign) are accepted; "1.", ".5", "1e-3" are numbers.
 * Returns null where Python raises (empty text, "0x10", "1,5", "1__0", a group that did not match).
 * Only ASCII digits are accepted (Python also takes other Unicode decimal digits).
 */

const DIGITS = String.raw`\d(?:_?\d)*`;
const DECIMAL = new RegExp(`^[+-]?(?:${DIGITS}(?:\\.(?:${DIGITS})?)?|\\.${DIGITS})(?:[eE][+-]?${DIGITS})?$`);
const SPECIAL = /^([+-]?)(inf|infinity|nan)$/i;

export function parsePythonFloat(text: string | undefined): number | null {
  if (text === undefined) return null;
  const trimmed = text.trim();
  const special = SPECIAL.exec(trimmed);
  if (special) {
    if (special[2]?.toLowerCase() === "nan") return Number.NaN;
    return special[1] === "-" ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  }
  // Overflow behaves as in Python: "1e999" is inf.
  return DECIMAL.test(trimmed) ? Number(trimmed.replaceAll("_", "")) : null;
}
