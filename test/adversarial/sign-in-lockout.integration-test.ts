import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/server/db/client";
import { DEMO_PASSWORD } from "@/server/db/seed";
import {
  type Answer,
  attempts,
  type Console,
  retryAfterSeconds,
  signIn,
  startConsolePair,
} from "./sign-in-console";

/**
 * Issue 34 item 4: five wrong passwords for lead@ from one address made lead@'s right password fail from
 * another address for 900 s, renewable by the attacker, and 20 failures from one address blocked every user
 * behind it. Now failures slow down only (account, address) and address, with growing delays; the victim at
 * another address signs in, every time. Through the real route over real sockets, on a real database.
 */
let consoles: Awaited<ReturnType<typeof startConsolePair>> | undefined;
let db: Db;
let direct: Console;
/** A console told that 127.0.0.10 is its ingress. */
let behindIngress: Console;
const INGRESS = "127.0.0.10";

const sessionsOf = async (email: string) => db.session.count({ where: { user: { email } } });

const statuses = (answers: Answer[]) => answers.map((answer) => answer.status);

beforeAll(async () => {
  consoles = await startConsolePair("adv_sign_in", INGRESS);
  ({ db, direct, behindIngress } = consoles);
}, 120_000);

afterAll(async () => {
  await consoles?.close();
});

describe("sign-in throttling an attacker cannot turn against a user (issue 34 item 4)", () => {
  it("an attacker's wrong passwords for lead@ from A do not stop lead@ signing in from B", async () => {
    const email = "lead@rebound.local";
    const answers = await attempts(30, () => signIn(direct, { email, password: "guess", from: "127.0.0.2" }));
    // Five free failures and a sixth; then A waits, and its attempts are refused without being checked.
    expect(statuses(answers.slice(0, 6))).toEqual([401, 401, 401, 401, 401, 401]);
    expect(new Set(statuses(answers.slice(6)))).toEqual(new Set([429]));
    expect(answers.at(-1)?.message).toMatch(/for this account from this address: try again in \d+ s$/);

    const before = await sessionsOf(email);
    const victim = await signIn(direct, { email, password: DEMO_PASSWORD, from: "127.0.0.3" });
    expect(victim.status).toBe(200);
    expect(victim.cookies.join(";")).toMatch(/rebound_session=[^;]+/);
    expect(await sessionsOf(email)).toBe(before + 1);
  });

  it("the attacker's delay grows with each failure: 1 s, 2 s, 4 s", async () => {
    const email = "engineer@rebound.local";
    const from = "127.0.0.4";
    const waits: Array<number | null> = [];
    for (const free of await attempts(6, () => signIn(direct, { email, password: "guess", from }))) {
      expect(free.status).toBe(401);
    }
    for (let round = 0; round < 3; round++) {
      const refused = await signIn(direct, { email, password: "guess", from });
      const wait = retryAfterSeconds(refused);
      waits.push(wait);
      await new Promise((resolve) => setTimeout(resolve, (wait ?? 0) * 1000 + 50));
      expect((await signIn(direct, { email, password: "guess", from })).status).toBe(401);
    }
    console.log(`attacker's waits after failures 6, 7, 8: ${waits.join(" s, ")} s`);
    expect(waits).toEqual([1, 2, 4]);
    expect((await signIn(direct, { email, password: DEMO_PASSWORD, from: "127.0.0.44" })).status).toBe(200);
  }, 30_000);

  it("a wrong-password flood from one address delays that address only", async () => {
    const flood = await attempts(25, (index) =>
      signIn(direct, { email: `flood-${index}@rebound.local`, password: "guess", from: "127.0.0.5" }),
    );
    expect(statuses(flood.slice(0, 21))).toEqual(Array(21).fill(401));
    expect(flood.at(-1)?.message).toMatch(/from this address: try again in \d+ s$/);
    const other = await signIn(direct, {
      email: "viewer@rebound.local",
      password: DEMO_PASSWORD,
      from: "127.0.0.6",
    });
    expect(other.status).toBe(200);
  });

  it("ignores a forged X-Forwarded-For when no proxy is trusted", async () => {
    const email = "admin@rebound.local";
    // The attacker names the victim's address, then a new one each time: it is still counted as itself.
    const answers = await attempts(12, (index) =>
      signIn(direct, {
        email,
        password: "guess",
        from: "127.0.0.7",
        forwardedFor: index === 0 ? "127.0.0.8" : `198.51.100.${index}`,
      }),
    );
    expect(statuses(answers.slice(6))).toEqual(Array(6).fill(429));
    const victim = await signIn(direct, { email, password: DEMO_PASSWORD, from: "127.0.0.8" });
    expect(victim.status).toBe(200);
  });

  it("behind a trusted ingress, counts the address the ingress appended, not the client's own entries", async () => {
    const email = "lead@rebound.local";
    // Through the ingress, the attacker (198.51.100.1) prepends a new forged address to every request.
    const answers = await attempts(10, (index) =>
      signIn(behindIngress, {
        email,
        password: "guess",
        from: INGRESS,
        forwardedFor: `203.0.113.${index}, 198.51.100.1`,
      }),
    );
    expect(statuses(answers.slice(6))).toEqual(Array(4).fill(429));
    // The attacker's own address waits, even with the right password…
    const attacker = await signIn(behindIngress, {
      email,
      password: DEMO_PASSWORD,
      from: INGRESS,
      forwardedFor: "198.51.100.1",
    });
    expect(attacker.status).toBe(429);
    // Not through the ingress, a header naming the victim's address is the sender's own claim: ignored.
    await attempts(10, () =>
      signIn(behindIngress, { email, password: "guess", from: "127.0.0.11", forwardedFor: "198.51.100.2" }),
    );
    // …and everyone else behind the ingress is not that address: the victim signs in.
    const victim = await signIn(behindIngress, {
      email,
      password: DEMO_PASSWORD,
      from: INGRESS,
      forwardedFor: "198.51.100.2",
    });
    expect(victim.status).toBe(200);
  });
});
