import { describe, expect, it } from "vitest";
import { createPortPicker, findFreePort } from "./free-port";

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
});
