import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * The local back end's API credential: 32 random bytes (base64url) in `<data dir>/operator-token`, mode
 * 0600, made at the operator's first start and never replaced. The CLI and the console read the same file.
 */
export const OPERATOR_TOKEN_FILE = "operator-token";

export const operatorTokenPath = (dataDir: string) => path.join(dataDir, OPERATOR_TOKEN_FILE);

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** The token in the data dir, or null when there is none yet (the operator has not started there). */
export function readOperatorToken(dataDir: string): string | null {
  let text: string;
  try {
    text = readFileSync(operatorTokenPath(dataDir), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  const token = text.trim();
  if (!TOKEN_PATTERN.test(token))
    throw new Error(
      `${operatorTokenPath(dataDir)} does not hold an operator token (43 base64url characters)`,
    );
  return token;
}

/**
 * The token, created if missing: written whole to a private temp file, then linked into place, which fails
 * if the file appeared meanwhile (another operator won: its token is kept). A reader never sees half a file.
 */
export function ensureOperatorToken(dataDir: string): string {
  const existing = readOperatorToken(dataDir);
  if (existing) return existing;
  mkdirSync(dataDir, { recursive: true });
  const temp = path.join(dataDir, `.${OPERATOR_TOKEN_FILE}.${process.pid}.${randomBytes(4).toString("hex")}`);
  writeFileSync(temp, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600, flag: "wx" });
  try {
    chmodSync(temp, 0o600);
    linkSync(temp, operatorTokenPath(dataDir));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    unlinkSync(temp);
  }
  const token = readOperatorToken(dataDir);
  if (!token) throw new Error(`${operatorTokenPath(dataDir)} vanished as it was created`);
  return token;
}

/** Constant-time comparison (hashes first, so the lengths match and leak nothing). */
export function sameToken(given: string, expected: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
