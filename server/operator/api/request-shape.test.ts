import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import type { ApiAuth } from "./authorize";
import { localTokenAuth, NOBODY, refuseForeignRequest } from "./authorize";

const PORT = 8081;
const local = localTokenAuth({ token: "t".repeat(43), tokenFile: "/data/operator-token" });
const cluster: ApiAuth = { ...local, kind: "kubernetes" };

function request(opts: { method?: string; url?: string; headers?: Record<string, string> }): IncomingMessage {
  return {
    method: opts.method ?? "GET",
    url: opts.url ?? "/api/v1/jobs",
    headers: { host: `127.0.0.1:${PORT}`, ...opts.headers },
    socket: { localPort: PORT },
  } as unknown as IncomingMessage;
}

const refusal = (run: () => void) => {
  try {
    run();
  } catch (error) {
    return { status: (error as { status: number }).status, message: (error as Error).message };
  }
  return null;
};

const post = (type: string | undefined, extra: Record<string, string> = {}) =>
  request({
    method: "POST",
    url: "/api/v1/jobs/ns/job/actions",
    headers: { "content-length": "20", ...(type ? { "content-type": type } : {}), ...extra },
  });

describe("content type of writes", () => {
  it.each([
    ["text/plain", "text/plain"],
    ["text/plain;charset=UTF-8", "text/plain"],
    ["application/x-www-form-urlencoded", "application/x-www-form-urlencoded"],
    ["multipart/form-data; boundary=x", "multipart/form-data"],
    [undefined, "none"],
  ])("refuses %s with 415 naming the header, on both APIs", (type, named) => {
    for (const auth of [local, cluster]) {
      expect(refusal(() => refuseForeignRequest(post(type), auth, { body: "json" }))).toEqual({
        status: 415,
        message: `content-type: expected application/json for POST /api/v1/jobs/ns/job/actions, got ${named}`,
      });
    }
  });

  it("accepts JSON with parameters, and YAML types only where the route reads YAML", () => {
    expect(
      refusal(() => refuseForeignRequest(post("Application/JSON; charset=utf-8"), local, { body: "json" })),
    ).toBeNull();
    for (const type of ["application/yaml", "application/x-yaml", "text/yaml", "application/json"]) {
      expect(refusal(() => refuseForeignRequest(post(type), local, { body: "yaml" }))).toBeNull();
    }
    expect(
      refusal(() => refuseForeignRequest(post("application/yaml"), local, { body: "json" }))?.status,
    ).toBe(415);
  });

  it("asks nothing of reads, nor of a DELETE without a body; a DELETE with one must be JSON", () => {
    expect(refusal(() => refuseForeignRequest(request({}), local, { body: "json" }))).toBeNull();
    expect(
      refusal(() => refuseForeignRequest(request({ method: "DELETE" }), local, { body: "json" })),
    ).toBeNull();
    const withBody = request({ method: "DELETE", headers: { "transfer-encoding": "chunked" } });
    expect(refusal(() => refuseForeignRequest(withBody, local, { body: "json" }))?.status).toBe(415);
  });
});

describe("Host and Origin on the local API", () => {
  it.each([`127.0.0.1:${PORT}`, `localhost:${PORT}`, `[::1]:${PORT}`, `LOCALHOST:${PORT}`])(
    "accepts Host %s",
    (host) => {
      expect(
        refusal(() => refuseForeignRequest(request({ headers: { host } }), local, { body: "json" })),
      ).toBeNull();
    },
  );

  it.each([
    "evil.example",
    `evil.example:${PORT}`,
    "127.0.0.1",
    `127.0.0.1:${PORT + 1}`,
    `10.0.0.5:${PORT}`,
    "",
  ])("refuses Host %j with 421 naming the header", (host) => {
    const answer = refusal(() =>
      refuseForeignRequest(request({ headers: { host } }), local, { body: "json" }),
    );
    expect(answer?.status).toBe(421);
    expect(answer?.message).toMatch(/^host: expected 127\.0\.0\.1:8081, localhost:8081, \[::1\]:8081 /);
  });

  it.each(["https://evil.example", `http://localhost:3000`, "null", `https://127.0.0.1:${PORT}`])(
    "refuses Origin %s with 403 naming the header",
    (origin) => {
      const answer = refusal(() =>
        refuseForeignRequest(request({ headers: { origin } }), local, { body: "json" }),
      );
      expect(answer?.status).toBe(403);
      expect(answer?.message).toMatch(/^origin: expected none or http:\/\/127\.0\.0\.1:8081/);
    },
  );

  it("accepts the operator's own loopback origin", () => {
    const own = request({ headers: { origin: `http://localhost:${PORT}` } });
    expect(refusal(() => refuseForeignRequest(own, local, { body: "json" }))).toBeNull();
  });

  it("checks Host before the content type (a rebound name learns nothing else)", () => {
    const foreign = post("text/plain", { host: "evil.example", origin: "https://evil.example" });
    expect(refusal(() => refuseForeignRequest(foreign, local, { body: "json" }))?.status).toBe(421);
  });

  it("applies no Host rule on Kubernetes (the Service's name) nor on the metrics-only listener", () => {
    const service = request({ headers: { host: "rebound-operator.rebound-system.svc:8081" } });
    expect(refusal(() => refuseForeignRequest(service, cluster, { body: "json" }))).toBeNull();
    const scrape = request({ url: "/metrics", headers: { host: `10.1.2.3:8082` } });
    expect(refusal(() => refuseForeignRequest(scrape, NOBODY, { body: "json" }))).toBeNull();
  });
});
