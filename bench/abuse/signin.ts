import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildConsoleIfNeeded } from "@/scripts/lib/next-build";
import { createDb } from "@/server/db/client";
import { startEmbeddedPostgres } from "@/server/db/embedded";
import { migrate } from "@/server/db/migrate";
import { DEMO_PASSWORD, seedIfEmpty } from "@/server/db/seed";
import { SESSION_COOKIE } from "@/server/services/auth/sessions";
import { startConsoleProcess } from "../console/console-process";
import type { Lifecycle } from "../k8s/environment";
import { type Answer, poster, retryAfterSeconds, type SignInTarget, signIn } from "../lib/sign-in-client";

/**
 * The sign-in half of `npm run bench:abuse` (issue 34 item 4, with item 5's timing): the built console as
 * `npm start` serves it, on a seeded database. An attacker at ATTACKER floods `attempts` wrong passwords
 * for lead@ back to back, each with an X-Forwarded-For naming the victim's address (no proxy is trusted, so
 * it must be ignored); the victim at VICTIM signs in with the right password `signIns` times, the first
 * half each sent together with one of the attacker's attempts, the rest after the flood. Prints the
 * victim's successes (every one must succeed) and latency, the attacker's refusals and the delays it was
 * told, and the median time of a wrong password for a known and an unknown email.
 */
export type SignInAbuseOptions = {
  /** Stops what the part starts: at the end, or at once when the bench is interrupted. */
  life: Lifecycle;
  log: (line: string) => void;
  attempts?: number;
  signIns?: number;
};

const ATTACKER = "127.0.0.2";
const VICTIM = "127.0.0.3";
const EMAIL = "lead@rebound.local";
/** Wrong passwords for a known and an unknown email, each from its own address (127.0.1.x, 127.0.2.x). */
const TIMING_SAMPLES = 40;

const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};
const round1 = (value: number) => Math.round(value * 10) / 10;
const signedIn = (answer: Answer) =>
  answer.status === 200 && answer.cookies.some((cookie) => cookie.startsWith(`${SESSION_COOKIE}=`));

async function lockoutRace(target: SignInTarget, attempts: number, signIns: number) {
  const during = Math.ceil(signIns / 2);
  // The victim's first `during` sign-ins go out with attacker attempts spread over the whole flood.
  const together = new Set(Array.from({ length: during }, (_, j) => Math.floor((j * attempts) / during)));
  const attacker: Answer[] = [];
  const victim: Answer[] = [];
  const victimSignIn = () => signIn(target, { email: EMAIL, password: DEMO_PASSWORD, from: VICTIM });
  for (let index = 0; index < attempts; index++) {
    const attack = signIn(target, {
      email: EMAIL,
      password: `guess-${index}`,
      from: ATTACKER,
      forwardedFor: VICTIM,
    });
    if (together.has(index)) {
      const [answer, own] = await Promise.all([attack, victimSignIn()]);
      attacker.push(answer);
      victim.push(own);
    } else attacker.push(await attack);
  }
  const duringOk = victim.filter(signedIn).length;
  while (victim.length < signIns) victim.push(await victimSignIn());
  return { attacker, victim, duringOk };
}

async function emailTiming(target: SignInTarget) {
  const median = (values: number[]) => {
    const sorted = [...values].sort((x, y) => x - y);
    const middle = Math.floor(sorted.length / 2);
    return sorted.length % 2
      ? (sorted[middle] ?? 0)
      : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
  };
  const wrong = (email: string, from: string) => signIn(target, { email, password: "wrong", from });
  for (let index = 0; index < 4; index++) {
    await wrong("viewer@rebound.local", `127.0.3.${index + 1}`);
    await wrong(`warm-${index}@rebound.local`, `127.0.4.${index + 1}`);
  }
  const known: number[] = [];
  const unknown: number[] = [];
  for (let index = 0; index < TIMING_SAMPLES; index++) {
    const existing = await wrong("viewer@rebound.local", `127.0.1.${index + 1}`);
    const missing = await wrong(`nobody-${index}@rebound.local`, `127.0.2.${index + 1}`);
    if (existing.status !== 401 || missing.status !== 401 || existing.message !== missing.message)
      throw new Error(
        `timing: expected the same 401 for a known and an unknown email, got ${existing.status} "${existing.message}" and ${missing.status} "${missing.message}"`,
      );
    known.push(existing.ms);
    unknown.push(missing.ms);
  }
  return { knownMs: median(known), unknownMs: median(unknown) };
}

async function measure(target: SignInTarget, attempts: number, signIns: number) {
  // Warm-up from addresses the measurement does not use: the route loaded, a first hash computed.
  for (let index = 0; index < 3; index++) {
    const warm = await signIn(target, {
      email: "viewer@rebound.local",
      password: DEMO_PASSWORD,
      from: `127.0.0.${20 + index}`,
    });
    if (!signedIn(warm)) throw new Error(`warm-up sign-in: got ${warm.status} "${warm.message}"`);
  }
  const { attacker, victim, duringOk } = await lockoutRace(target, attempts, signIns);
  const refusals = attacker.filter((answer) => answer.status === 429);
  const told = refusals.map(retryAfterSeconds).filter((seconds) => seconds !== null);
  const odd = attacker.filter(
    (answer) => answer.status !== 401 && (answer.status !== 429 || retryAfterSeconds(answer) === null),
  );
  if (odd.length > 0)
    throw new Error(
      `attacker: expected 401, or 429 with a delay, got ${odd.map((a) => `${a.status} "${a.message}"`).join(", ")}`,
    );
  const timing = await emailTiming(target);
  const victimMs = victim.map((answer) => answer.ms);
  return {
    figures: {
      attacker_attempts: attempts,
      attacker_401: attacker.filter((answer) => answer.status === 401).length,
      attacker_429: refusals.length,
      attacker_told_min_s: told.length > 0 ? Math.min(...told) : 0,
      attacker_told_max_s: told.length > 0 ? Math.max(...told) : 0,
      victim_sign_ins: signIns,
      victim_ok: victim.filter(signedIn).length,
      victim_ok_during_flood: duringOk,
      victim_p50_ms: round1(quantile(victimMs, 0.5)),
      victim_p99_ms: round1(quantile(victimMs, 0.99)),
      known_email_median_ms: round1(timing.knownMs),
      unknown_email_median_ms: round1(timing.unknownMs),
      timing_samples: TIMING_SAMPLES,
    },
    attackerStatuses: runs(attacker.map((answer) => answer.status)),
    toldSequence: runs(told.map((seconds) => `${seconds} s`)),
    victimFailures: victim.filter((answer) => !signedIn(answer)),
  };
}

/** "401×6, 429×44": a sequence as runs of equal values. */
function runs(values: Array<number | string>): string {
  const out: Array<[number | string, number]> = [];
  for (const value of values) {
    const last = out.at(-1);
    if (last && last[0] === value) last[1] += 1;
    else out.push([value, 1]);
  }
  return out.map(([value, count]) => `${value}×${count}`).join(", ") || "none";
}

function print(result: Awaited<ReturnType<typeof measure>>) {
  const f = result.figures;
  const row = (label: string, value: number | string, target = "") =>
    `${label.padEnd(58)}${String(value).padStart(10)}  ${target}`;
  console.log(
    [
      "",
      `Sign-in lockout: ${f.attacker_attempts} wrong passwords for ${EMAIL} from ${ATTACKER} (X-Forwarded-For: ${VICTIM}), victim at ${VICTIM}`,
      row("victim sign-ins that succeeded", `${f.victim_ok}/${f.victim_sign_ins}`, "target: all"),
      row(
        "  of them sent during the flood",
        `${f.victim_ok_during_flood}/${Math.ceil(f.victim_sign_ins / 2)}`,
      ),
      row("victim sign-in p50, ms", f.victim_p50_ms),
      row("victim sign-in p99, ms", f.victim_p99_ms),
      row("attacker answers", "", result.attackerStatuses),
      row("attacker refusals (429)", f.attacker_429),
      row(
        "attacker told to wait, min–max s",
        `${f.attacker_told_min_s}–${f.attacker_told_max_s}`,
        result.toldSequence,
      ),
      row(`wrong password, known email: median of ${f.timing_samples}, ms`, f.known_email_median_ms),
      row(
        `wrong password, unknown email: median of ${f.timing_samples}, ms`,
        f.unknown_email_median_ms,
        `ratio ${(f.known_email_median_ms / f.unknown_email_median_ms).toFixed(2)}`,
      ),
    ].join("\n"),
  );
}

export async function runSignInAbuse(opts: SignInAbuseOptions): Promise<Record<string, number>> {
  const { life, log } = opts;
  await buildConsoleIfNeeded(log);
  const dir = await mkdtemp(path.join(tmpdir(), "rebound-abuse-signin-"));
  life.defer("remove the temp dir", () => rm(dir, { recursive: true, force: true }));
  const database = await startEmbeddedPostgres({ dataDir: dir });
  life.defer("stop PostgreSQL", () => database.stop());
  await migrate(database.url);
  const db = createDb(database.url);
  try {
    await seedIfEmpty(db);
  } finally {
    await db.$disconnect();
  }
  const consoleProcess = await startConsoleProcess({
    databaseUrl: database.url,
    // auth.signIn reads no cluster; the console needs an operator address to start, never calls it here.
    operatorUrl: "http://127.0.0.1:9",
    operatorToken: "unused",
    logFile: path.join(dir, "console.log"),
  });
  life.defer("stop the console", () => consoleProcess.stop());
  log(`console up (pid ${consoleProcess.pid}); attacking from ${ATTACKER}…`);
  const result = await measure(
    { post: poster(consoleProcess.url) },
    opts.attempts ?? 50,
    opts.signIns ?? 20,
  ).catch(async (error: unknown) => {
    const tail = (await readFile(path.join(dir, "console.log"), "utf8")).split("\n").slice(-20).join("\n");
    log(`the console's last lines:\n${tail}`);
    throw error;
  });
  print(result);
  const failed = result.victimFailures;
  if (failed.length > 0)
    throw new Error(
      `the victim was kept out ${failed.length} times: ${failed.map((a) => `${a.status} "${a.message}"`).join(", ")}`,
    );
  return result.figures;
}
