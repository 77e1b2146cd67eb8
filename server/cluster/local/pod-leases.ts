import {
  chmodSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { z } from "zod";

/**
 * Who holds each pooled account (a pod's user, a job's group) on this machine, shared by every Rebound
 * instance on it (any data dir): one file per account and generation, `<dir>/<account>.<generation>`, the
 * highest generation saying who holds it now. A change is a new generation made with link(2), which fails
 * when the name exists, so of two instances taking the same account (free, or left by a dead holder) from
 * the same generation exactly one succeeds; the other looks again. Lower generations are then removed (a
 * reader that finds one gone looks again; the highest is never removed, so one is always there; a writer
 * that finds a generation above its own lost).
 */
export const leaseSchema = z.object({
  account: z.string(),
  /** The account's uid (a user) or gid (a group). */
  id: z.number().int(),
  /** Free: its last holder handed everything back (processes ended, directories returned to root). */
  free: z.boolean(),
  /** The operator process holding it, and its data dir (an instance is its data dir). */
  holder: z.object({ pid: z.number().int(), startTime: z.string().nullable(), dataDir: z.string() }),
  /** What it was given to, in that instance: `<namespace>/<pod>` or `<namespace>/<job>/<job uid>`. */
  owner: z.string(),
  /** The directories given to the account: returned to root before anyone else gets it. */
  dirs: z.array(z.string()),
});
export type LeaseBody = z.infer<typeof leaseSchema>;
export type Lease = LeaseBody & { generation: number };

const FILE = /^(.+)\.(\d+)$/;

export type LeaseStore = {
  /** The account's current lease; null when it was never leased here. */
  read(account: string): Lease | null;
  /** Every leased account's current lease, by name. */
  all(): Map<string, Lease>;
  /**
   * Writes the account's next lease after `seen` (the generation read; 0 when never leased). False when
   * someone else wrote one first: read again.
   */
  take(account: string, seen: number, body: LeaseBody): boolean;
};

function listGenerations(dir: string): Map<string, number[]> {
  const found = new Map<string, number[]>();
  for (const name of readdirSync(dir)) {
    const match = FILE.exec(name);
    if (!match || name.startsWith(".")) continue;
    const list = found.get(match[1] as string) ?? [];
    list.push(Number(match[2]));
    found.set(match[1] as string, list);
  }
  return found;
}

const missing = (error: unknown) => (error as NodeJS.ErrnoException).code === "ENOENT";

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if (!missing(error)) throw error;
  }
}

/** Writes `file` whole, or not at all when it exists: a temp file linked to its name. */
function linkNew(dir: string, file: string, text: string): boolean {
  const temp = path.join(
    dir,
    `.${path.basename(file)}.${process.pid}.${Math.random().toString(36).slice(2)}`,
  );
  writeFileSync(temp, text, { mode: 0o600 });
  try {
    linkSync(temp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    unlinkSync(temp);
  }
}

/**
 * The store in `dir`, made (root's, 0700: pods cannot read who holds what) at its first use, so a machine
 * where it cannot be made fails the pod being created, saying why, rather than the operator's start.
 */
export function openLeaseStore(dir: string): LeaseStore {
  let made = false;
  const ensure = () => {
    if (made) return;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    made = true;
  };
  const generations = (at: string) => {
    ensure();
    return listGenerations(at);
  };
  const readAt = (account: string, generation: number): Lease | null => {
    try {
      const body = leaseSchema.parse(
        JSON.parse(readFileSync(path.join(dir, `${account}.${generation}`), "utf8")),
      );
      return { ...body, generation };
    } catch (error) {
      if (missing(error)) return null;
      throw new Error(
        `pod account lease ${path.join(dir, `${account}.${generation}`)} is unreadable: ${error}`,
      );
    }
  };
  const current = (account: string, known?: number[]): Lease | null => {
    // A generation read as gone was superseded meanwhile: the next listing shows the newer one.
    for (let tries = 0; tries < 100; tries += 1) {
      const list = known ?? generations(dir).get(account) ?? [];
      known = undefined;
      if (list.length === 0) return null;
      const lease = readAt(account, Math.max(...list));
      if (lease) return lease;
    }
    throw new Error(`the lease of ${account} kept changing while read`);
  };
  return {
    read: (account) => current(account),
    all() {
      const leases = new Map<string, Lease>();
      for (const [account, list] of generations(dir)) {
        const lease = current(account, list);
        if (lease) leases.set(account, lease);
      }
      return leases;
    },
    take(account, seen, body) {
      const mine = path.join(dir, `${account}.${seen + 1}`);
      // Parsed: only the lease's own fields are written (a Lease read back carries its generation too).
      ensure();
      if (!linkNew(dir, mine, JSON.stringify(leaseSchema.parse(body)))) return false;
      const known = generations(dir).get(account) ?? [];
      // `seen` was already superseded and its successor removed (below): ours is not the newest, so not held.
      if (known.some((generation) => generation > seen + 1)) {
        unlinkQuietly(mine);
        return false;
      }
      for (const old of known.filter((generation) => generation <= seen)) {
        unlinkQuietly(path.join(dir, `${account}.${old}`));
      }
      return true;
    },
  };
}
