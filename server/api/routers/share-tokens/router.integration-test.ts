import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ZodError } from "zod";
import type { Context } from "@/server/api/context";
import { createCaller } from "@/server/api/root";
import { fieldPath } from "@/server/api/trpc";
import { createDb, type Db } from "@/server/db/client";
import { createSignInLimiter } from "@/server/domain/access/sign-in-limiter";
import { createLogger } from "@/server/log";
import { signIn } from "@/server/services/auth/sessions";
import { listGovernanceAudit } from "@/server/services/governance/audit";
import { hashShareSecret, shareGrantForToken } from "@/server/services/share-tokens/grants";
import { pairWithCode } from "@/server/services/share-tokens/pairing";
import { createSeededTestDatabase } from "@/test/database";

/**
 * The shareTokens router on real Postgres: a cluster admin creates (link or pairing code), lists and revokes
 * tokens, each audited; bad input names its field and changes nothing; others are refused; a TV redeems a
 * pairing code once, gets its cookie, and wrong codes are limited per address.
 */
let database: { url: string; drop: () => Promise<void> };
let db: Db;
let teams: Map<string, string>;

type Caller = ReturnType<typeof createCaller>;

function contextOf(opts: {
  user?: Context["user"];
  cookies?: string[];
  address?: string;
  secure?: boolean;
}): Context {
  return {
    db,
    user: opts.user ?? null,
    sessionToken: undefined,
    share: null,
    log: createLogger({ test: "share-tokens-router" }),
    setCookie: (cookie) => opts.cookies?.push(cookie),
    cluster: async () => {
      throw new Error("no cluster in this test");
    },
    clientAddress: opts.address ?? "127.0.0.1",
    secure: opts.secure ?? false,
  };
}

async function callerFor(email: string): Promise<Caller> {
  const session = await signIn(db, { email, password: "rebound-demo" });
  if (!session.ok) throw new Error(session.reason);
  return createCaller(contextOf({ user: session.user }));
}

/** `wrong` codes per address are answered, then the address waits a minute (longer than a test). */
const pairingLimits = (wrong: number) => {
  const backoff = { free: wrong - 1, baseMs: 60_000, maxMs: 60_000 };
  return { perAccountAddress: backoff, perAddress: backoff, forgetAfterMs: 600_000, maxKeys: 100 };
};

/** A refusal as a client reads it: the code, and the formatter's message (bad fields named, `path: message`). */
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => "allowed",
    (error: unknown) => {
      if (!(error instanceof TRPCError)) return String(error);
      const cause = error.cause;
      const message =
        cause instanceof ZodError
          ? cause.issues.map((issue) => `${fieldPath(issue.path)}: ${issue.message}`).join("; ")
          : error.message;
      return `${error.code}: ${message}`;
    },
  );

async function state() {
  const [tokens, audit] = await Promise.all([
    db.shareToken.findMany({ orderBy: { id: "asc" } }),
    db.auditLog.count(),
  ]);
  return JSON.stringify({ tokens, audit });
}

let admin: Caller;
beforeAll(async () => {
  database = await createSeededTestDatabase("it_share_tokens");
  db = createDb(database.url);
  admin = await callerFor("admin@rebound.local");
  const rows = await db.team.findMany({ select: { id: true, name: true } });
  teams = new Map(rows.map((team) => [team.name, team.id]));
});

afterAll(async () => {
  await db.$disconnect();
  await database.drop();
});

const teamId = (name: string) => teams.get(name) ?? "";

describe("a cluster admin", () => {
  it("creates a link token: the secret once, with its link; the list shows it without the secret", async () => {
    const created = await admin.shareTokens.create({
      label: "  Lobby TV ",
      views: ["jobs", "cluster"],
      allTeams: false,
      teamIds: [teamId("vision")],
    });
    if (created.kind !== "link") throw new Error("expected a link");
    expect(created.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(created.link).toBe(`/tv/jobs?token=${created.secret}`);
    expect(created.token).toMatchObject({
      label: "Lobby TV",
      views: ["jobs", "cluster"],
      allTeams: false,
      teams: [{ id: teamId("vision"), name: "vision" }],
      createdBy: { name: "Cluster Admin" },
      lastUsedAt: null,
      revokedAt: null,
      state: "active",
    });
    const list = await admin.shareTokens.list();
    const listed = list.find((token) => token.id === created.token.id);
    expect(listed).toEqual(created.token);
    expect(JSON.stringify(list)).not.toContain(created.secret);
    const row = await db.shareToken.findUniqueOrThrow({ where: { id: created.token.id } });
    expect(row.tokenHash).toBe(hashShareSecret(created.secret));

    const audit = await db.auditLog.findFirstOrThrow({
      where: { action: "shareToken.create", target: `shareToken/${created.token.id}` },
    });
    expect(audit.details).toEqual({
      before: null,
      after: { label: "Lobby TV", views: ["jobs", "cluster"], teams: ["vision"], delivery: "link" },
    });
    expect(JSON.stringify(audit)).not.toContain(created.secret);
    // Cluster admins read it in the governance audit log; a team's log (team targets only) does not list it.
    const governanceLog = await listGovernanceAudit(db, { teams: null, limit: 50 });
    expect(governanceLog.map((entry) => entry.id)).toContain(audit.id);
    const teamLog = await listGovernanceAudit(db, { teams: ["vision"], limit: 50 });
    expect(teamLog.map((entry) => entry.id)).not.toContain(audit.id);

    // The grant a TV gets with it: those views and that team only; its use recorded.
    const grant = await shareGrantForToken(db, created.secret);
    expect(grant).toEqual({
      tokenId: created.token.id,
      label: "Lobby TV",
      views: ["jobs", "cluster"],
      allTeams: false,
      teamIds: [teamId("vision")],
    });
    const used = (await admin.shareTokens.list()).find((token) => token.id === created.token.id);
    expect(used?.lastUsedAt).toBeInstanceOf(Date);
  });

  it("revokes: the token stops at once; revoking again changes nothing and is audited once", async () => {
    const created = await admin.shareTokens.create({
      label: "Hall TV",
      views: ["incidents"],
      allTeams: true,
      teamIds: [],
    });
    if (created.kind !== "link") throw new Error("expected a link");
    const revoked = await admin.shareTokens.revoke({ id: created.token.id });
    expect(revoked.state).toBe("revoked");
    expect(revoked.revokedAt).toBeInstanceOf(Date);
    expect(await shareGrantForToken(db, created.secret)).toBeNull();
    const before = await state();
    const again = await admin.shareTokens.revoke({ id: created.token.id });
    expect(again.revokedAt).toEqual(revoked.revokedAt);
    expect(await state()).toBe(before);
    expect(
      await db.auditLog.count({
        where: { action: "shareToken.revoke", target: `shareToken/${created.token.id}` },
      }),
    ).toBe(1);
    const list = await admin.shareTokens.list();
    expect(list.at(-1)?.state).toBe("revoked");
    expect(await refusal(admin.shareTokens.revoke({ id: "00000000-0000-4000-8000-000000000000" }))).toBe(
      "NOT_FOUND: id: no share token 00000000-0000-4000-8000-000000000000",
    );
  });

  it("gets each bad field named, and nothing changes", async () => {
    const before = await state();
    expect(
      await refusal(admin.shareTokens.create({ label: "", views: [], allTeams: false, teamIds: [] })),
    ).toBe(
      "BAD_REQUEST: label: give the token a label, e.g. where the screen hangs; views: choose at least one view; teamIds: choose at least one team, or all teams",
    );
    const ghost = "00000000-0000-4000-8000-000000000001";
    expect(
      await refusal(
        admin.shareTokens.create({
          label: "TV",
          views: ["jobs"],
          allTeams: false,
          teamIds: [teamId("vision"), ghost],
        }),
      ),
    ).toBe(`BAD_REQUEST: teamIds: no team with id ${ghost}: choose teams that exist`);
    expect(await state()).toBe(before);
  });
});

describe("anyone else", () => {
  it("is refused every admin procedure, and nothing changes", async () => {
    const before = await state();
    for (const email of ["lead@rebound.local", "engineer@rebound.local", "viewer@rebound.local"]) {
      const caller = await callerFor(email);
      expect(await refusal(caller.shareTokens.list())).toBe("FORBIDDEN: only a cluster admin may do this");
      expect(
        await refusal(
          caller.shareTokens.create({ label: "TV", views: ["jobs"], allTeams: true, teamIds: [] }),
        ),
      ).toBe("FORBIDDEN: only a cluster admin may do this");
    }
    const someone = (await db.shareToken.findFirstOrThrow()).id;
    const anonymous = createCaller(contextOf({}));
    expect(await refusal(anonymous.shareTokens.revoke({ id: someone }))).toBe("UNAUTHORIZED: sign in first");
    expect(await state()).toBe(before);
  });
});

describe("pairing", () => {
  async function pairingToken(label: string) {
    const created = await admin.shareTokens.create({
      label,
      views: ["reliability", "jobs"],
      allTeams: true,
      teamIds: [],
      pairing: true,
    });
    if (created.kind !== "pairing") throw new Error("expected a pairing code");
    return created;
  }

  it("gives a code, not a secret; a TV redeems it once and gets its cookie", async () => {
    const started = Date.now();
    const created = await pairingToken("Pairing TV");
    expect(created.code).toMatch(/^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/);
    expect(created.expiresAt.getTime() - started).toBeGreaterThan(9.9 * 60_000);
    expect(created.expiresAt.getTime() - started).toBeLessThanOrEqual(10 * 60_000 + 5_000);
    expect(created.token.state).toBe("pairing");
    const row = await db.shareToken.findUniqueOrThrow({ where: { id: created.token.id } });
    expect(row.tokenHash).toBeNull();
    expect(JSON.stringify(row)).not.toContain(created.code.replace("-", ""));

    const cookies: string[] = [];
    const tv = createCaller(contextOf({ cookies, address: "10.0.0.7", secure: true }));
    expect(await tv.shareTokens.pair({ code: created.code.toLowerCase() })).toEqual({
      view: "reliability",
      path: "/tv/reliability",
    });
    expect(cookies).toHaveLength(1);
    const match =
      /^rebound_share=([A-Za-z0-9_-]{43}); Path=\/; HttpOnly; SameSite=Lax; Max-Age=34560000; Secure$/.exec(
        cookies[0] ?? "",
      );
    expect(match, cookies[0]).not.toBeNull();
    const secret = match?.[1] ?? "";
    const paired = await db.shareToken.findUniqueOrThrow({ where: { id: created.token.id } });
    expect(paired).toMatchObject({
      tokenHash: hashShareSecret(secret),
      pairingCodeHash: null,
      pairingExpiresAt: null,
    });
    expect((await shareGrantForToken(db, secret))?.tokenId).toBe(created.token.id);
    expect((await admin.shareTokens.list()).find((t) => t.id === created.token.id)?.state).toBe("active");
    expect(
      await db.auditLog.count({
        where: { action: "shareToken.pair", target: `shareToken/${created.token.id}` },
      }),
    ).toBe(1);

    // Used: the same code again is just wrong, and nothing changes.
    const before = await state();
    expect(await refusal(tv.shareTokens.pair({ code: created.code }))).toBe(
      "BAD_REQUEST: code: this pairing code is wrong, expired or already used: ask a cluster admin for a new one",
    );
    expect(await state()).toBe(before);
  });

  it("refuses an expired or revoked code with the same message, changing nothing", async () => {
    const expired = await pairingToken("Late TV");
    await db.shareToken.update({
      where: { id: expired.token.id },
      data: { pairingExpiresAt: new Date(Date.now() - 1000) },
    });
    const revoked = await pairingToken("Dropped TV");
    await admin.shareTokens.revoke({ id: revoked.token.id });
    expect((await admin.shareTokens.list()).find((t) => t.id === expired.token.id)?.state).toBe(
      "pairing-expired",
    );
    const before = await state();
    const limiter = createSignInLimiter(pairingLimits(10));
    for (const code of [expired.code, revoked.code]) {
      expect(
        await pairWithCode(db, { code: code.replace("-", ""), address: "10.0.0.8" }, limiter).catch(String),
      ).toBe(
        "AppError: code: this pairing code is wrong, expired or already used: ask a cluster admin for a new one",
      );
    }
    expect(await state()).toBe(before);
  });

  it("limits wrong codes per client address, as sign-in does", async () => {
    const limiter = createSignInLimiter(pairingLimits(3));
    const good = await pairingToken("Patient TV");
    const attempt = (code: string, address: string) =>
      pairWithCode(db, { code, address }, limiter).then(
        (paired) => `paired ${paired.view}`,
        (error: unknown) => String(error),
      );
    for (let round = 0; round < 3; round++) expect(await attempt("ZZZZZZZZ", "10.0.0.9")).toContain("wrong");
    expect(await attempt(good.code.replace("-", ""), "10.0.0.9")).toMatch(
      /^AppError: too many wrong pairing codes from this address: try again in \d+ s$/,
    );
    expect((await db.shareToken.findUniqueOrThrow({ where: { id: good.token.id } })).tokenHash).toBeNull();
    expect(await attempt(good.code.replace("-", ""), "10.0.0.10")).toBe("paired reliability");
  });
});
