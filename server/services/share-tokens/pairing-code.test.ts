import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  formatPairingCode,
  normalizePairingCode,
  PAIRING_ALPHABET,
  PAIRING_CODE_LENGTH,
  pairingCodeFrom,
} from "./pairing-code";

describe("pairing codes", () => {
  it("use 32 symbols with no look-alikes", () => {
    expect(PAIRING_ALPHABET).toHaveLength(32);
    expect(new Set(PAIRING_ALPHABET).size).toBe(32);
    for (const ambiguous of ["0", "O", "1", "I"]) expect(PAIRING_ALPHABET).not.toContain(ambiguous);
  });

  it("are 8 characters of the alphabet, every symbol reachable, shown as XXXX-XXXX", () => {
    const seen = new Set<string>();
    for (let round = 0; round < 400; round++) {
      const code = pairingCodeFrom(randomBytes(PAIRING_CODE_LENGTH));
      expect(code).toMatch(/^[A-HJ-NP-Z2-9]{8}$/);
      for (const char of code) seen.add(char);
      expect(formatPairingCode(code)).toMatch(/^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/);
    }
    expect(seen.size).toBe(32);
    expect(pairingCodeFrom(Uint8Array.from([0, 1, 2, 31, 32, 33, 255, 224]))).toBe("ABC9AB9A");
    expect(formatPairingCode("ABCDEFGH")).toBe("ABCD-EFGH");
  });

  it("refuses too few random bytes", () => {
    expect(() => pairingCodeFrom(new Uint8Array(7))).toThrow("needs 8 random bytes");
  });

  it("read as typed: case, spaces and dashes do not matter; anything else is no code", () => {
    expect(normalizePairingCode("abcd-efgh")).toBe("ABCDEFGH");
    expect(normalizePairingCode(" ab cd ef gh ")).toBe("ABCDEFGH");
    expect(normalizePairingCode("ABCDEFGH")).toBe("ABCDEFGH");
    expect(normalizePairingCode("ABCD-EFG")).toBeNull();
    expect(normalizePairingCode("ABCD-EFGHJ")).toBeNull();
    expect(normalizePairingCode("ABCD-EFG0")).toBeNull();
    expect(normalizePairingCode("ABCD-EFGI")).toBeNull();
    expect(normalizePairingCode("ABCD_EFGH")).toBeNull();
    expect(normalizePairingCode("")).toBeNull();
  });
});
