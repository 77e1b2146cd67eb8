/**
 * Pairing codes: what an admin reads off the console and a TV's operator types on the wall screen's
 * keyboard. Eight characters from an alphabet without look-alikes (no 0/O, no 1/I), shown as XXXX-XXXX.
 * 32 symbols ⇒ 40 bits; a code lives 10 minutes and `pair` is rate-limited per address, so it cannot be
 * guessed in its lifetime. Pure (randomness is passed in), so the client form normalizes with it too.
 */
export const PAIRING_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
export const PAIRING_CODE_LENGTH = 8;
export const PAIRING_TTL_MS = 10 * 60 * 1000;

/** A fresh code from `bytes` (at least PAIRING_CODE_LENGTH random bytes); 32 symbols, so no modulo bias. */
export function pairingCodeFrom(bytes: Uint8Array): string {
  if (bytes.length < PAIRING_CODE_LENGTH)
    throw new Error(`a pairing code needs ${PAIRING_CODE_LENGTH} random bytes, got ${bytes.length}`);
  let code = "";
  for (let index = 0; index < PAIRING_CODE_LENGTH; index++) {
    code += PAIRING_ALPHABET[(bytes[index] ?? 0) % PAIRING_ALPHABET.length];
  }
  return code;
}

/** `ABCDEFGH` → `ABCD-EFGH`, as the admin reads it out. */
export function formatPairingCode(code: string): string {
  const half = PAIRING_CODE_LENGTH / 2;
  return `${code.slice(0, half)}-${code.slice(half)}`;
}

/**
 * What a person typed, as the code it means: case, spaces and dashes do not matter. Null when it is not
 * eight characters of the alphabet.
 */
export function normalizePairingCode(typed: string): string | null {
  const code = typed.toUpperCase().replace(/[\s-]/g, "");
  if (code.length !== PAIRING_CODE_LENGTH) return null;
  for (const char of code) if (!PAIRING_ALPHABET.includes(char)) return null;
  return code;
}
