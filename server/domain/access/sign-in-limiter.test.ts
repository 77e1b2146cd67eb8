import { describe, expect, it } from "vitest";
import { backoffDelayMs, createSignInLimiter, type SignInLimits } from "./sign-in-limiter";

const limits: SignInLimits = {
  perAccountAddress: { free: 3, baseMs: 1000, maxMs: 8000 },
  perAddress: { free: 5, baseMs: 1000, maxMs: 8000 },
  forgetAfterMs: 60_000,
  maxKeys: 100,
};
const attacker = { account: "lead@x", address: "10.0.0.1" };
const victim = { account: "lead@x", address: "10.0.0.2" };

describe("sign-in limiter", () => {
  it("doubles the delay with each failure past the free ones, up to the cap", () => {
    const backoff = { free: 2, baseMs: 1000, maxMs: 5000 };
    expect([1, 2, 3, 4, 5, 6, 100].map((n) => backoffDelayMs(n, backoff))).toEqual([
      0, 0, 1000, 2000, 4000, 5000, 5000,
    ]);
  });

  it("delays an account from the failing address only: the same account from another address is checked", () => {
    const limiter = createSignInLimiter(limits);
    for (let i = 0; i < 20; i += 1) {
      const check = limiter.check(attacker, i * 10_000);
      if (check.allowed) limiter.failed(attacker, i * 10_000);
    }
    expect(limiter.check(attacker, 190_500)).toMatchObject({ allowed: false, by: "account-address" });
    expect(limiter.check(victim, 190_500)).toEqual({ allowed: true });
    // The case of the e-mail does not make a new key.
    expect(limiter.check({ ...attacker, account: "LEAD@x" }, 190_500)).toMatchObject({ allowed: false });
  });

  it("grows the wait one failure at a time; attempts made while waiting are refused and not counted", () => {
    const limiter = createSignInLimiter(limits);
    for (let i = 0; i < 3; i += 1) limiter.failed(attacker, 0);
    expect(limiter.check(attacker, 0)).toEqual({ allowed: true });
    limiter.failed(attacker, 0);
    expect(limiter.check(attacker, 500)).toEqual({
      allowed: false,
      retryAfterMs: 500,
      by: "account-address",
    });
    // Hammering during the wait changes nothing.
    for (let i = 0; i < 50; i += 1) limiter.check(attacker, 600);
    expect(limiter.check(attacker, 1000)).toEqual({ allowed: true });
    limiter.failed(attacker, 1000);
    expect(limiter.check(attacker, 1000)).toMatchObject({ retryAfterMs: 2000 });
    limiter.failed(attacker, 3000);
    expect(limiter.check(attacker, 3000)).toMatchObject({ retryAfterMs: 4000 });
  });

  it("delays an address that fails across many accounts, and no other address", () => {
    const limiter = createSignInLimiter(limits);
    for (let i = 0; i < 6; i += 1) limiter.failed({ account: `user${i}@x`, address: "10.0.0.2" }, 1000);
    expect(limiter.check({ account: "fresh@x", address: "10.0.0.2" }, 1500)).toEqual({
      allowed: false,
      retryAfterMs: 500,
      by: "address",
    });
    expect(limiter.check({ account: "fresh@x", address: "10.0.0.3" }, 1500)).toEqual({ allowed: true });
    expect(limiter.check({ account: "user0@x", address: "10.0.0.3" }, 1500)).toEqual({ allowed: true });
  });

  it("clears the (account, address) failures on success, not the address's", () => {
    const limiter = createSignInLimiter(limits);
    for (let i = 0; i < 4; i += 1) limiter.failed(attacker, 0);
    limiter.succeeded(attacker);
    expect(limiter.check(attacker, 1)).toEqual({ allowed: true });
    limiter.failed({ account: "bob@x", address: attacker.address }, 1);
    limiter.failed({ account: "bob@x", address: attacker.address }, 1);
    expect(limiter.check({ account: "carol@x", address: attacker.address }, 2)).toMatchObject({
      allowed: false,
      by: "address",
    });
  });

  it("forgets a key after the quiet period", () => {
    const limiter = createSignInLimiter(limits);
    for (let i = 0; i < 10; i += 1) limiter.failed(attacker, 0);
    expect(limiter.check(attacker, 59_999)).toMatchObject({ allowed: true });
    limiter.failed(attacker, 59_999);
    expect(limiter.check(attacker, 59_999)).toMatchObject({ allowed: false, retryAfterMs: 8000 });
    expect(limiter.check(attacker, 59_999 + 60_000)).toEqual({ allowed: true });
    expect(limiter.size()).toBe(0);
  });

  it("stays bounded in memory", () => {
    const limiter = createSignInLimiter({ ...limits, maxKeys: 10 });
    for (let i = 0; i < 100; i += 1) limiter.failed({ account: `u${i}`, address: `a${i}` }, i);
    expect(limiter.size()).toBeLessThanOrEqual(10);
  });
});
