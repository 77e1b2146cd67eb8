import { describe, expect, it } from "vitest";
import { shareCookie } from "./cookie";
import { isTvPagePath, shareTokenHandoff } from "./handoff";

const SECRET = "q1w2e3r4t5y6u7i8o9p0a1s2d3f4g5h6j7k8l9z0x1c";
const at = (url: string, headers: Record<string, string> = {}) =>
  shareTokenHandoff(new URL(url), new Headers(headers));

describe("share link hand-off", () => {
  it("moves the token into the cookie and drops it from the URL, other parameters kept", () => {
    expect(at(`http://tv.local/tv/jobs?token=${SECRET}`)).toEqual({
      location: "/tv/jobs",
      setCookie: `rebound_share=${SECRET}; Path=/; HttpOnly; SameSite=Lax; Max-Age=34560000`,
    });
    expect(at(`http://tv.local/tv?rotate=30&token=${SECRET}&views=jobs`)?.location).toBe(
      "/tv?rotate=30&views=jobs",
    );
    expect(at(`http://tv.local/tv/play?views=cluster%2Cjobs&every=30&token=${SECRET}`)?.location).toBe(
      "/tv/play?views=cluster%2Cjobs&every=30",
    );
  });

  it("marks the cookie Secure over HTTPS, directly or behind a TLS proxy", () => {
    expect(at(`https://tv.local/tv/cluster?token=${SECRET}`)?.setCookie).toContain("; Secure");
    expect(
      at(`http://tv.local/tv/cluster?token=${SECRET}`, { "x-forwarded-proto": "https" })?.setCookie,
    ).toContain("; Secure");
    expect(at(`http://tv.local/tv/cluster?token=${SECRET}`)?.setCookie).not.toContain("Secure");
  });

  it("drops a token that is not a secret's shape without storing it", () => {
    expect(at("http://tv.local/tv/jobs?token=x;%20Path=/admin")).toEqual({
      location: "/tv/jobs",
      setCookie: null,
    });
  });

  it("leaves every other URL alone", () => {
    expect(at("http://tv.local/tv/jobs")).toBeNull();
    expect(at(`http://tv.local/jobs?token=${SECRET}`)).toBeNull();
    expect(at(`http://tv.local/tv/pair?token=${SECRET}`)).toBeNull();
    expect(at(`http://tv.local/tv/unknown?token=${SECRET}`)).toBeNull();
    expect(isTvPagePath("/tv")).toBe(true);
    expect(isTvPagePath("/tv/")).toBe(true);
    expect(isTvPagePath("/tv/incidents")).toBe(true);
    expect(isTvPagePath("/tvx")).toBe(false);
  });

  it("clears the cookie with Max-Age 0", () => {
    expect(shareCookie({ value: "", secure: false, maxAgeSeconds: 0 })).toBe(
      "rebound_share=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0",
    );
  });
});
