import { describe, expect, it } from "vitest";
import { createSignInLimiter } from "./sign-in-limiter";

const limits = { perAccount: 3, perAddress: 5, windowMs: 60_000, maxKeys: 100 };
const alice = { account: "alice@x", address: "10.0.0.1" };

function failTimes(
  limiter: ReturnType<typeof createSignInLimiter>,
  attempt: typeof alice,
  n: number,
  at = 0,
) {
  for (let i = 0; i < n; i += 1) limiter.failed(attempt, at);
}

describe("sign-in limiter", () => {
  it("refuses an account after its limit of failures, until the oldest leaves the window", () => {
    const limiter = createSignInLimiter(limits);
    limiter.failed(alice, 0);
    limiter.failed(alice, 10_000);
    expect(limiter.check(alice, 20_000)).toEqual({ allowed: true });
    limiter.failed(alice, 20_000);
    expect(limiter.check(alice, 30_000)).toEqual({ allowed: false, retryAfterMs: 30_000, by: "account" });
    // The same account from another address is refused too; the case of the e-mail does not matter.
    expect(limiter.check({ account: "ALICE@x", address: "10.9.9.9" }, 30_000)).toMatchObject({
      allowed: false,
      by: "account",
    });
    expect(limiter.check(alice, 60_000)).toEqual({ allowed: true });
  });

  it("refuses an address that fails across many accounts", () => {
    const limiter = createSignInLimiter(limits);
    for (let i = 0; i < 5; i += 1) limiter.failed({ account: `user${i}@x`, address: "10.0.0.2" }, 1000);
    expect(limiter.check({ account: "fresh@x", address: "10.0.0.2" }, 2000)).toMatchObject({
      allowed: false,
      by: "address",
    });
    expect(limiter.check({ account: "fresh@x", address: "10.0.0.3" }, 2000)).toEqual({ allowed: true });
  });

  it("clears an account's failures on success, not its address's", () => {
    const limiter = createSignInLimiter(limits);
    failTimes(limiter, alice, 2);
    limiter.succeeded(alice);
    failTimes(limiter, alice, 2);
    expect(limiter.check(alice, 1)).toEqual({ allowed: true });
    failTimes(limiter, { account: "bob@x", address: alice.address }, 1);
    expect(limiter.check({ account: "carol@x", address: alice.address }, 1)).toMatchObject({
      allowed: false,
      by: "address",
    });
  });

  it("stays bounded in memory", () => {
    const limiter = createSignInLimiter({ ...limits, maxKeys: 10 });
    for (let i = 0; i < 100; i += 1) limiter.failed({ account: `u${i}`, address: `a${i}` }, i);
    expect(limiter.size()).toBeLessThanOrEqual(10);
  });
});
