import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { type Lease, type LeaseBody, type LeaseStore, openLeaseStore } from "./pod-leases";
import { type AccountKind, createSweeper, handBack, processesOf } from "./pod-reclaim";
import { isStillAlive, startTimeOf } from "./process-tree";

/**
 * A machine-wide pool of accounts for local pods: users `rebound-pod-<n>` (one per running pod) and groups
 * `rebound-job-<n>` (one per job, for the checkpoints its pods share), made by useradd/groupadd on first
 * need and reused afterwards. Every Rebound instance on the machine (any data dir) leases from the same
 * store (pod-leases.ts), so no two hand out one account at once. A lease is held while its instance's
 * data dir exists and either its operator process or a process of the account runs (pods outlive an
 * operator that is killed, and the next one adopts them); otherwise it is stale and may be taken over.
 * Whoever ends a lease (its holder releasing it, or the next taking a stale one over) first kills the
 * account's processes, hands its directories back to root and sweeps its files from /tmp (pod-reclaim.ts).
 */
export const LEASE_DIR = "/var/lib/rebound/pod-leases";
export const PREFIX: Record<AccountKind, string> = { user: "rebound-pod", group: "rebound-job" };
/** Far above any one machine's pods or jobs: a bound, so a broken store cannot loop forever. */
const POOL_LIMIT = 4096;

/** The machine's accounts: looked up by name, made when missing. */
export type Accounts = {
  find(kind: AccountKind, name: string): number | null;
  create(kind: AccountKind, name: string): Promise<void>;
};

/** The entry's id in /etc/passwd (users) or /etc/group (groups), where useradd and groupadd write them. */
function findInEtc(kind: AccountKind, name: string): number | null {
  const file = kind === "user" ? "/etc/passwd" : "/etc/group";
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const fields = line.split(":");
    if (fields[0] === name) {
      const id = Number(fields[2]);
      // An account named so but holding id 0 would drop nothing.
      return Number.isInteger(id) && id > 0 ? id : null;
    }
  }
  return null;
}

const ADD_ARGS: Record<AccountKind, readonly string[]> = {
  user: [
    "--system",
    "--user-group",
    "--no-create-home",
    "--home-dir",
    "/nonexistent",
    "--shell",
    "/usr/sbin/nologin",
  ],
  group: ["--system"],
};
const ADD_COMMAND: Record<AccountKind, string> = { user: "useradd", group: "groupadd" };

function addAccount(kind: AccountKind, name: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    execFile(ADD_COMMAND[kind], [...ADD_ARGS[kind], name], { timeout: 30_000 }, (error, _out, stderr) => {
      // Another instance may have made it meanwhile: then it is there all the same.
      if (!error || findInEtc(kind, name) !== null) return resolve();
      reject(new Error(`${ADD_COMMAND[kind]} ${name} failed: ${stderr || error.message}`));
    });
  });
}

let creating: Promise<unknown> = Promise.resolve();

/** useradd/groupadd, one at a time in this process (each locks /etc/passwd or /etc/group). */
function createInEtc(kind: AccountKind, name: string): Promise<void> {
  const made = creating.then(() => addAccount(kind, name));
  creating = made.catch(() => undefined);
  return made;
}

export const systemAccounts: Accounts = { find: findInEtc, create: createInEtc };

/**
 * Ends an account's lease: hands its directories back to root before returning (they may be given to
 * another account at once), then kills its processes and sweeps its files (`swept`).
 */
export type Reclaim = (kind: AccountKind, lease: Pick<Lease, "id" | "dirs">) => { swept: Promise<void> };

const sweepShared = createSweeper();

export const reclaimOnMachine: Reclaim = (kind, lease) => {
  for (const dir of lease.dirs) handBack(dir);
  return { swept: sweepShared(kind, lease.id) };
};

/** Whether the account may hold something of a previous holder's: not if released, or made just now. */
const leftBehind = (seen: Lease | null, made: boolean) => (seen ? !seen.free : !made);

export type AccountPool = {
  /** An account for `owner`, its lease listing `dirs`. */
  acquire(owner: string, dirs: readonly string[]): Promise<{ name: string; id: number }>;
  /** Holds again the account an earlier operator of this data dir gave `owner`; null when that is over. */
  adopt(name: string, owner: string): { name: string; id: number } | null;
  /** The account this instance (this process or an earlier one) leased to `owner` and still has, by name. */
  leasedTo(owner: string): string | null;
  /**
   * Ends the lease: its directories are handed back before the first await (they may be given to another
   * account at once); the lease is free once its processes are killed and its files swept (the promise).
   */
  release(name: string, owner: string): Promise<void>;
};

export function createAccountPool(
  kind: AccountKind,
  opts: { dataDir: string; store?: LeaseStore; accounts?: Accounts; reclaim?: Reclaim },
): AccountPool {
  const store = opts.store ?? openLeaseStore(LEASE_DIR);
  const accounts = opts.accounts ?? systemAccounts;
  const reclaim = opts.reclaim ?? reclaimOnMachine;
  const holder = { pid: process.pid, startTime: startTimeOf(process.pid), dataDir: opts.dataDir };
  const releasing = new Set<string>();
  // One acquire at a time in this process: pods created together would otherwise all race for the lowest.
  let acquiring: Promise<unknown> = Promise.resolve();

  const held = (lease: Lease) =>
    !lease.free &&
    existsSync(lease.holder.dataDir) &&
    (isStillAlive(lease.holder) || processesOf(kind, new Set([lease.id])).length > 0);
  const ours = (lease: Lease | null, owner: string): lease is Lease =>
    lease !== null && !lease.free && lease.owner === owner && lease.holder.dataDir === opts.dataDir;
  const body = (id: number, owner: string, dirs: readonly string[], name: string): LeaseBody => ({
    account: name,
    id,
    free: false,
    holder,
    owner,
    dirs: [...dirs],
  });

  /** The account's id, and whether it was made just now (nothing of it can be left to end). */
  const accountId = async (name: string): Promise<{ id: number; made: boolean }> => {
    const found = accounts.find(kind, name);
    if (found !== null) return { id: found, made: false };
    await accounts.create(kind, name);
    const made = accounts.find(kind, name);
    if (made === null) throw new Error(`${name} was not found after it was made`);
    return { id: made, made: true };
  };

  /** The account, if free or abandoned; "held": someone has it; "changed": someone else wrote first. */
  const tryTake = async (name: string, owner: string, dirs: readonly string[]) => {
    const seen = store.read(name);
    if (seen && (releasing.has(name) || held(seen))) return "held" as const;
    const { id, made } = await accountId(name);
    if (!store.take(name, seen?.generation ?? 0, body(id, owner, dirs, name))) return "changed" as const;
    // Left by a dead holder, or an older account never leased here (a process of it may run): end that first.
    if (leftBehind(seen, made)) await reclaim(kind, { id, dirs: seen?.dirs ?? [] }).swept;
    return { name, id };
  };

  /** The lowest-numbered account free or abandoned, taken for `owner`. */
  const firstFree = async (owner: string, dirs: readonly string[]) => {
    let index = 0;
    // Held: the next account; changed meanwhile: this one again, 50 times at most.
    for (let tries = 0; tries <= 50 && index < POOL_LIMIT; ) {
      const taken = await tryTake(`${PREFIX[kind]}-${index}`, owner, dirs);
      if (typeof taken === "object") return taken;
      [index, tries] = taken === "held" ? [index + 1, 0] : [index, tries + 1];
    }
    throw new Error(
      `no ${kind} taken (at ${PREFIX[kind]}-${index}, limit ${POOL_LIMIT}; a lease kept changing)`,
    );
  };

  return {
    acquire(owner, dirs) {
      const turn = acquiring.then(() => firstFree(owner, dirs));
      acquiring = turn.catch(() => undefined);
      return turn;
    },
    adopt(name, owner) {
      const seen = store.read(name);
      const id = seen?.id ?? accounts.find(kind, name);
      if (id === null || (seen !== null && !ours(seen, owner))) return null;
      const taken = seen
        ? store.take(name, seen.generation, { ...seen, holder })
        : store.take(name, 0, body(id, owner, [], name));
      return taken ? { name, id } : null;
    },
    leasedTo(owner) {
      for (const lease of store.all().values()) {
        if (lease.account.startsWith(`${PREFIX[kind]}-`) && ours(lease, owner)) return lease.account;
      }
      return null;
    },
    async release(name, owner) {
      const seen = store.read(name);
      if (!ours(seen, owner) || releasing.has(name)) return;
      releasing.add(name);
      try {
        await reclaim(kind, seen).swept;
        store.take(name, seen.generation, { ...seen, holder, free: true, dirs: [] });
      } finally {
        releasing.delete(name);
      }
    },
  };
}
