import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/server/db/client";
import { createShareToken } from "@/server/services/share-tokens/mutations";
import { type Answer, attempts, type Console, startConsolePair } from "./sign-in-console";

/**
 * Issue 34 item 4, pairing codes: wrong codes from one address kept every TV behind the same address (an
 * ingress: everyone) from pairing, and a client could pick its address with X-Forwarded-For. Now only the
 * failing address waits, and the address is the one the trusted proxies vouch for (the pairing's audit
 * entry records it). Through the real route over real sockets, on a real database.
 */
let consoles: Awaited<ReturnType<typeof startConsolePair>> | undefined;
let db: Db;
let direct: Console;
let behindIngress: Console;
const INGRESS = "127.0.0.20";
const WRONG = "ZZZZ-ZZZZ";
const statusesOf = (answers: Answer[]) => answers.map((answer) => answer.status);

const pair = (target: Console, opts: { code: string; from: string; forwardedFor?: string }) =>
  target.post({ path: "shareTokens.pair", input: { code: opts.code }, ...opts });

async function pairingCode(label: string): Promise<{ id: string; code: string }> {
  const admin = await db.user.findUniqueOrThrow({ where: { email: "admin@rebound.local" } });
  const created = await createShareToken(db, {
    input: { label, views: ["reliability"], allTeams: true, teamIds: [], pairing: true },
    actorId: admin.id,
  });
  if (created.kind !== "pairing") throw new Error("expected a pairing code");
  return { id: created.token.id, code: created.code };
}

const pairedFrom = async (id: string) => {
  const entry = await db.auditLog.findFirst({
    where: { action: "shareToken.pair", target: `shareToken/${id}` },
  });
  return (entry?.details as { address?: string } | undefined)?.address ?? null;
};

beforeAll(async () => {
  consoles = await startConsolePair("adv_pairing", INGRESS);
  ({ db, direct, behindIngress } = consoles);
}, 120_000);

afterAll(async () => {
  await consoles?.close();
});

describe("pairing codes an attacker cannot turn against a TV (issue 34 item 4)", () => {
  it("wrong codes from A, naming B in X-Forwarded-For, do not stop B's TV pairing", async () => {
    const token = await pairingCode("Wall TV");
    const statuses = statusesOf(
      await attempts(14, (index) =>
        pair(direct, {
          code: WRONG,
          from: "127.0.0.12",
          forwardedFor: index % 2 ? "127.0.0.13" : `6.6.6.${index}`,
        }),
      ),
    );
    // Ten free wrong codes and an eleventh; then A waits.
    expect(statuses).toEqual([...Array(11).fill(400), 429, 429, 429]);
    const refused = await pair(direct, { code: token.code, from: "127.0.0.12" });
    expect(refused.message).toMatch(/^too many wrong pairing codes from this address: try again in \d+ s$/);

    const tv = await pair(direct, { code: token.code, from: "127.0.0.13" });
    expect(tv.status).toBe(200);
    expect(tv.cookies.join(";")).toMatch(/rebound_share=[^;]+/);
    expect(await pairedFrom(token.id)).toBe("127.0.0.13");
  });

  it("behind a trusted ingress, the address the ingress appended counts, not the client's entries", async () => {
    const token = await pairingCode("Lobby TV");
    const statuses = statusesOf(
      await attempts(14, (index) =>
        pair(behindIngress, {
          code: WRONG,
          from: INGRESS,
          forwardedFor: `203.0.113.${index}, 198.51.100.20`,
        }),
      ),
    );
    expect(statuses.slice(11)).toEqual([429, 429, 429]);
    const tv = await pair(behindIngress, {
      code: token.code,
      from: INGRESS,
      forwardedFor: "6.6.6.6, 198.51.100.21",
    });
    expect(tv.status).toBe(200);
    expect(await pairedFrom(token.id)).toBe("198.51.100.21");
  });
});
