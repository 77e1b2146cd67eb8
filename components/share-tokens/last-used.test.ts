import { describe, expect, it } from "vitest";
import { formatExpiry, formatLastUsed } from "./last-used";

const NOW = Date.parse("2026-11-28T12:00:00Z");
const ago = (seconds: number) => new Date(NOW - seconds * 1000);

describe("last used", () => {
  it("reads never, just now, then minutes, hours and days ago", () => {
    expect(formatLastUsed(null, NOW)).toBe("never");
    expect(formatLastUsed(ago(5), NOW)).toBe("just now");
    expect(formatLastUsed(ago(-3), NOW)).toBe("just now");
    expect(formatLastUsed(ago(60), NOW)).toBe("1 min ago");
    expect(formatLastUsed(ago(59 * 60), NOW)).toBe("59 min ago");
    expect(formatLastUsed(ago(3 * 3600), NOW)).toBe("3 h ago");
    expect(formatLastUsed(ago(47 * 3600), NOW)).toBe("47 h ago");
    expect(formatLastUsed(ago(5 * 86400), NOW)).toBe("5 days ago");
  });

  it("reads a pairing code's expiry", () => {
    expect(formatExpiry(ago(-600), NOW)).toBe("in 10 min");
    expect(formatExpiry(ago(-61), NOW)).toBe("in 2 min");
    expect(formatExpiry(ago(-40), NOW)).toBe("in 40 s");
    expect(formatExpiry(ago(0), NOW)).toBe("expired");
    expect(formatExpiry(ago(30), NOW)).toBe("expired");
  });
});
