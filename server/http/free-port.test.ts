import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createPortPicker, findFreePort, markerClaim } from "./free-port";

describe("free ports", () => {
  it("never hands out a port twice while it is held, even when the kernel picks it again", async () => {
    const picks = [5000, 5000, 5001, 5000, 5002];
    const clock = 0;
    const next = createPortPicker(
      async () => picks.shift() ?? 0,
      () => clock,
    );
    expect([await next(), await next(), await next()]).toEqual([5000, 5001, 5002]);
    expect(picks).toEqual([]);
  });

  it("hands a port out again once it has been held for a minute", async () => {
    let clock = 0;
    const next = createPortPicker(
      async () => 5000,
      () => clock,
    );
    expect(await next()).toBe(5000);
    await expect(next()).rejects.toThrow(/no port free/);
    clock = 60_000;
    expect(await next()).toBe(5000);
  });

  it("gives concurrent callers different ports from the kernel", async () => {
    const ports = await Promise.all(Array.from({ length: 50 }, () => findFreePort()));
    expect(new Set(ports).size).toBe(50);
  });

  it("does not hand out a port another process claimed within the minute, and takes over a stale claim", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "rebound-ports-test-"));
    try {
      // Two pickers with their own memory, as two processes have, sharing the marker directory.
      const picks = [5000, 5000, 5001];
      const first = createPortPicker(async () => 5000, Date.now, markerClaim(dir));
      const second = createPortPicker(async () => picks.shift() ?? 0, Date.now, markerClaim(dir));
      expect(await first()).toBe(5000);
      expect(await second()).toBe(5001);
      const later = markerClaim(dir);
      expect(later(5000, Date.now())).toBe(false);
      expect(later(5000, Date.now() + 60_000)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("takes the port on its own word where no marker can be written", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "rebound-ports-test-"));
    try {
      const file = path.join(dir, "a-file");
      writeFileSync(file, "");
      // A directory under a regular file cannot be made (ENOTDIR).
      expect(markerClaim(path.join(file, "ports"))(5000, Date.now())).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
