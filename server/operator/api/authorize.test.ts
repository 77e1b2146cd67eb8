import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import type { ResourceCheck } from "@/server/domain/access/operator-api";
import { type ApiAuth, authenticate, authorize, type Caller, localTokenAuth, NOBODY } from "./authorize";

const TOKEN = "t".repeat(43);
const auth = localTokenAuth({ token: TOKEN, tokenFile: "/data/operator-token" });
const request = (authorization?: string) => ({ headers: { authorization } }) as unknown as IncomingMessage;
const check: ResourceCheck = { verb: "patch", group: "g", resource: "jobs", namespace: "team-a" };

describe("authenticate", () => {
  it("names where the credential is when there is none", async () => {
    await expect(authenticate(auth, request())).rejects.toMatchObject({
      status: 401,
      message: expect.stringMatching(/authorization required.*\/data\/operator-token/),
    });
  });

  it.each(["Basic dXNlcg==", "Bearer", `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(1)}`])(
    "refuses %s",
    async (header) => {
      await expect(authenticate(auth, request(header))).rejects.toMatchObject({ status: 401 });
    },
  );

  it("admits the token as local-token, with every right", async () => {
    const caller = await authenticate(auth, request(`bearer ${TOKEN}`));
    expect(caller).toEqual({ via: "local-token", identity: "local-token" });
    await expect(authorize(auth, caller, [check])).resolves.toBeUndefined();
  });

  it("admits nobody on the metrics-only listener", async () => {
    await expect(authenticate(NOBODY, request(`Bearer ${TOKEN}`))).rejects.toMatchObject({ status: 401 });
  });
});

describe("authorize", () => {
  const caller: Caller = { via: "kubernetes", identity: "alice", user: { username: "alice", groups: [] } };
  const only = (allowed: (c: ResourceCheck) => boolean): ApiAuth => ({
    kind: "kubernetes",
    hint: "",
    authenticate: async () => caller,
    allowed: async (_caller, c) => ({ allowed: allowed(c), reason: allowed(c) ? undefined : "no binding" }),
  });

  it("refuses with 403 naming the first right missing", async () => {
    const get = { ...check, verb: "get" };
    await expect(
      authorize(
        only((c) => c.verb === "get"),
        caller,
        [get, check],
      ),
    ).rejects.toMatchObject({
      status: 403,
      message: "alice may not patch jobs.g in namespace team-a (no binding)",
    });
  });

  it("passes when every check is allowed", async () => {
    await expect(
      authorize(
        only(() => true),
        caller,
        [check, check],
      ),
    ).resolves.toBeUndefined();
  });
});
