import { describe, expect, it } from "vitest";
import { parseTrustedProxies, resolveClientAddress, type TrustedProxies } from "./client-address";

const trust = (value: string): TrustedProxies => {
  const parsed = parseTrustedProxies(value);
  if ("error" in parsed) throw new Error(parsed.error);
  return parsed;
};
const resolve = (peer: string | undefined, forwardedFor: string | null, setting = "") =>
  resolveClientAddress({ peer, forwardedFor, trust: trust(setting) });

describe("client address", () => {
  it("believes no forwarded address by default: the connection's address counts", () => {
    expect(resolve("203.0.113.7", "10.9.9.9")).toBe("203.0.113.7");
    expect(resolve("::ffff:203.0.113.7", null)).toBe("203.0.113.7");
    expect(resolve(undefined, "10.9.9.9")).toBe("unknown");
    expect(resolve(undefined, "10.9.9.9", "1")).toBe("unknown");
  });

  it("with a hop count, takes the address that many trusted proxies vouch for, not what the client wrote", () => {
    // The client wrote 6.6.6.6; the ingress (10.0.0.5) appended the address it saw.
    expect(resolve("10.0.0.5", "6.6.6.6, 198.51.100.4", "1")).toBe("198.51.100.4");
    expect(resolve("10.0.0.5", "6.6.6.6, 198.51.100.4, 10.0.0.9", "2")).toBe("198.51.100.4");
    // Fewer entries than hops: the furthest one.
    expect(resolve("10.0.0.5", "198.51.100.4", "3")).toBe("198.51.100.4");
    expect(resolve("10.0.0.5", null, "1")).toBe("10.0.0.5");
  });

  it("with addresses and CIDRs, believes a hop only while the one nearer is trusted", () => {
    expect(resolve("10.0.0.5", "6.6.6.6, 198.51.100.4", "uniquelocal")).toBe("198.51.100.4");
    expect(resolve("10.0.0.5", "6.6.6.6, 198.51.100.4, 10.2.0.1", "10.0.0.0/8")).toBe("198.51.100.4");
    // A client reaching the console directly is not a trusted proxy: its header is ignored.
    expect(resolve("198.51.100.4", "10.1.1.1", "10.0.0.0/8, ::1")).toBe("198.51.100.4");
    expect(resolve("::1", "198.51.100.4", "loopback")).toBe("198.51.100.4");
    expect(resolve("::ffff:127.0.0.1", "198.51.100.4", "127.0.0.1")).toBe("198.51.100.4");
    expect(resolve("fd00::2", "2001:db8::1", "fc00::/7")).toBe("2001:db8::1");
  });

  it("refuses a setting it cannot read, saying what it expected", () => {
    expect(parseTrustedProxies(undefined)).toEqual({ kind: "none" });
    expect(parseTrustedProxies("none")).toEqual({ kind: "none" });
    expect(parseTrustedProxies("2")).toEqual({ kind: "hops", hops: 2 });
    expect(parseTrustedProxies("0")).toEqual({ error: expect.stringContaining("a hop count is 1 to 32") });
    expect(parseTrustedProxies("10.0.0.0/33")).toEqual({
      error: expect.stringMatching(/^"10\.0\.0\.0\/33" is not an address or CIDR: expected a hop count/),
    });
    expect(parseTrustedProxies("true")).toHaveProperty("error");
    expect(parseTrustedProxies("10.0.0.1, ingress")).toEqual({ error: expect.stringContaining('"ingress"') });
  });
});
