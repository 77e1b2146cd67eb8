import { describe, expect, it } from "vitest";
import { sessionCookie } from "@/server/api/routers/auth/router";
import { clientAddressOf, isSecureRequest } from "./context";

describe("request context", () => {
  it("believes no X-Forwarded-For without a stamped connection address or a trusted proxy", () => {
    expect(clientAddressOf(new Headers({ "x-forwarded-for": "6.6.6.6, 10.1.2.3" }))).toBe("unknown");
    expect(clientAddressOf(new Headers({ "x-rebound-peer": "forged 6.6.6.6" }))).toBe("unknown");
    expect(clientAddressOf(new Headers())).toBe("unknown");
  });

  it("knows a request came over HTTPS from its URL or a TLS-terminating proxy's header", () => {
    expect(isSecureRequest({ url: "https://console.example/api/trpc", headers: new Headers() })).toBe(true);
    expect(
      isSecureRequest({
        url: "http://10.0.0.1:3000/",
        headers: new Headers({ "x-forwarded-proto": "https" }),
      }),
    ).toBe(true);
    expect(isSecureRequest({ url: "http://localhost:3000/", headers: new Headers() })).toBe(false);
    expect(
      isSecureRequest({
        url: "http://localhost:3000/",
        headers: new Headers({ "x-forwarded-proto": "http" }),
      }),
    ).toBe(false);
  });

  it("marks the session cookie Secure over HTTPS only", () => {
    expect(sessionCookie({ value: "t", maxAgeSeconds: 60, secure: true })).toBe(
      "rebound_session=t; Path=/; HttpOnly; SameSite=Lax; Max-Age=60; Secure",
    );
    expect(sessionCookie({ value: "t", maxAgeSeconds: 60, secure: false })).not.toContain("Secure");
  });
});
