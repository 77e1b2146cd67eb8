import { mkdtempSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ensureOperatorToken, operatorTokenPath, readOperatorToken, sameToken } from "./local-token";

const freshDir = () => mkdtempSync(path.join(tmpdir(), "rebound-token-"));

describe("the local operator token", () => {
  it("is made once, 0600, and never replaced", () => {
    const dir = path.join(freshDir(), "nested");
    expect(readOperatorToken(dir)).toBeNull();
    const first = ensureOperatorToken(dir);
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(statSync(operatorTokenPath(dir)).mode & 0o777).toBe(0o600);
    expect(ensureOperatorToken(dir)).toBe(first);
    expect(readOperatorToken(dir)).toBe(first);
    expect(readdirSync(dir)).toEqual(["operator-token"]);
  });

  it("keeps a token another operator wrote first", () => {
    const dir = freshDir();
    const theirs = "a".repeat(43);
    writeFileSync(operatorTokenPath(dir), `${theirs}\n`, { mode: 0o600 });
    expect(ensureOperatorToken(dir)).toBe(theirs);
  });

  it("refuses a file that does not hold a token, naming it", () => {
    const dir = freshDir();
    writeFileSync(operatorTokenPath(dir), "short");
    expect(() => ensureOperatorToken(dir)).toThrow(/operator-token does not hold an operator token/);
  });

  it("compares tokens whatever their lengths", () => {
    expect(sameToken("abc", "abc")).toBe(true);
    expect(sameToken("abc", "abd")).toBe(false);
    expect(sameToken("abc", "abcd")).toBe(false);
    expect(sameToken("", "abc")).toBe(false);
  });
});
